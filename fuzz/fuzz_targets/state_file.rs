#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wasm_charm_host::fuzzing::cli::state_file(data));
