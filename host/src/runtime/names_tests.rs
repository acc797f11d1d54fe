use super::*;
use proptest::prelude::*;
use wasm_encoder::{
    CodeSection, Component, CustomSection, Function, FunctionSection, IndirectNameMap, Module,
    ModuleSection, NameMap, NameSection, NestedComponentSection, RawSection, TypeSection, ValType,
};

/// A module with one function, named `name`, its locals named too, and a
/// custom section of another name that must stay.
fn named_module(name: &str) -> Module {
    let mut module = Module::new();
    let mut types = TypeSection::new();
    types.ty().function([ValType::I32], [ValType::I32]);
    module.section(&types);
    let mut functions = FunctionSection::new();
    functions.function(0);
    module.section(&functions);
    let mut code = CodeSection::new();
    let mut f = Function::new([]);
    f.instructions().local_get(0).i32_const(7).i32_add().end();
    code.function(&f);
    module.section(&code);
    let mut names = NameSection::new();
    let mut functions = NameMap::new();
    functions.append(0, name);
    names.functions(&functions);
    let mut locals = NameMap::new();
    locals.append(0, "the_argument");
    let mut all_locals = IndirectNameMap::new();
    all_locals.append(0, &locals);
    names.locals(&all_locals);
    module.section(&names);
    module.section(&CustomSection {
        name: "producers-of-this-test".into(),
        data: b"kept".as_slice().into(),
    });
    module
}

/// The custom sections' names of every core module in `wasm`, nested
/// components' included, in order.
fn module_custom_sections(wasm: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut depth_is_module = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        match payload.unwrap() {
            wasmparser::Payload::Version { encoding, .. } => {
                depth_is_module.push(encoding == wasmparser::Encoding::Module);
            }
            wasmparser::Payload::End(_) => {
                depth_is_module.pop();
            }
            wasmparser::Payload::CustomSection(c) if depth_is_module.last() == Some(&true) => {
                names.push(c.name().to_string());
            }
            _ => {}
        }
    }
    names
}

#[test]
fn every_modules_names_go_and_everything_else_stays() {
    // A component holding a named module, and a component holding another.
    let mut inner = Component::new();
    inner.section(&ModuleSection(&named_module("inner_function_name")));
    let mut outer = Component::new();
    outer.section(&CustomSection {
        name: "component-level-note".into(),
        data: b"kept too".as_slice().into(),
    });
    outer.section(&ModuleSection(&named_module("outer_function_name")));
    outer.section(&NestedComponentSection(&inner));
    let wasm = outer.finish();
    assert_eq!(
        module_custom_sections(&wasm),
        [
            "name",
            "producers-of-this-test",
            "name",
            "producers-of-this-test"
        ]
    );

    let stripped = without_function_names(&wasm).expect("a well-formed component");
    assert_eq!(
        module_custom_sections(&stripped),
        ["producers-of-this-test", "producers-of-this-test"]
    );
    for gone in ["outer_function_name", "inner_function_name", "the_argument"] {
        assert!(!contains(&stripped, gone.as_bytes()), "{gone}");
    }
    assert!(contains(&stripped, b"component-level-note"));
    wasmparser::Validator::new()
        .validate_all(&stripped)
        .unwrap();

    // A bare module too.
    let module = named_module("bare_function_name").finish();
    let stripped = without_function_names(&module).unwrap();
    assert_eq!(
        module_custom_sections(&stripped),
        ["producers-of-this-test"]
    );
    assert!(!contains(&stripped, b"bare_function_name"));
}

#[test]
fn the_artifact_holds_no_function_name() {
    let mut component = Component::new();
    component.section(&ModuleSection(&named_module("a_function_nobody_reads")));
    let wasm = component.finish();
    let dir = tempfile::tempdir().unwrap();
    let path = super::super::cache::compile_artifact(
        super::super::engine::Target::Native,
        &wasm,
        dir.path(),
        "0000",
    )
    .unwrap();
    let artifact = std::fs::read(path).unwrap();
    assert!(!contains(&artifact, b"a_function_nobody_reads"));
    // What it would hold without the stripping: the name, for backtraces.
    let engine = super::super::engine::engine(super::super::engine::Target::Native).unwrap();
    let unstripped = engine.precompile_component(&wasm).unwrap();
    assert!(contains(&unstripped, b"a_function_nobody_reads"));
}

#[test]
fn what_is_not_a_module_or_component_is_left_to_the_compiler() {
    let module = named_module("f").finish();
    for bad in [
        &b""[..],
        b"\0asm",
        b"\0asm\x02\0\0\0",
        b"not wasm at all",
        &module[..module.len() - 1],
        // A section size past the end.
        b"\0asm\x01\0\0\0\x01\x7f",
        // A LEB128 longer than 32 bits.
        b"\0asm\x01\0\0\0\x01\xff\xff\xff\xff\x7f",
    ] {
        assert_eq!(without_function_names(bad), None, "{bad:?}");
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A section of a generated module: a custom section of a name or another
/// section id with arbitrary bytes.
#[derive(Debug, Clone)]
enum Section {
    Custom(String, Vec<u8>),
    Other(u8, Vec<u8>),
}

fn custom_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("name".to_string()),
        Just("names".to_string()),
        Just("producers".to_string()),
        "[a-z.]{0,12}",
    ]
}

fn section() -> impl Strategy<Value = Section> {
    let bytes = || prop::collection::vec(any::<u8>(), 0..300);
    let custom = (custom_name(), bytes()).prop_map(|(n, d)| Section::Custom(n, d));
    let other = (1u8..=12, bytes()).prop_map(|(id, d)| Section::Other(id, d));
    prop_oneof![custom, other]
}

fn module_of(sections: &[Section], keep: impl Fn(&Section) -> bool) -> Module {
    let mut module = Module::new();
    for s in sections.iter().filter(|s| keep(s)) {
        match s {
            Section::Custom(name, data) => module.section(&CustomSection {
                name: name.as_str().into(),
                data: data.as_slice().into(),
            }),
            Section::Other(id, data) => module.section(&RawSection { id: *id, data }),
        };
    }
    module
}

proptest! {
    /// Whatever a module's sections are, the result is the same module
    /// built without its `name` sections, inside a component or not, and
    /// section sizes re-encoded however long they are.
    #[test]
    fn the_result_is_the_module_built_without_its_name_sections(
        modules in prop::collection::vec(prop::collection::vec(section(), 0..8), 1..4)
    ) {
        let not_name = |s: &Section| !matches!(s, Section::Custom(n, _) if n == "name");
        let mut given = Component::new();
        let mut wanted = Component::new();
        for sections in &modules {
            given.section(&ModuleSection(&module_of(sections, |_| true)));
            wanted.section(&ModuleSection(&module_of(sections, not_name)));
            let bare = module_of(sections, |_| true).finish();
            prop_assert_eq!(
                without_function_names(&bare),
                Some(module_of(sections, not_name).finish())
            );
        }
        prop_assert_eq!(without_function_names(&given.finish()), Some(wanted.finish()));
    }

    /// Any bytes at all: an answer, never a panic; and an answer only for
    /// what starts as wasm does.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        if let Some(out) = without_function_names(&bytes) {
            prop_assert_eq!(&out[..4], b"\0asm");
        }
    }
}
