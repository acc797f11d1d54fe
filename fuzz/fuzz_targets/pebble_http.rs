#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wasm_charm_host::fuzzing::pebble_http(data));
