//! A component's top-level imports and exports, read from its binary without
//! compiling it, and the versions of this host's WIT package among them.
//! Pure: bytes in, names out.

use crate::bindings::WIT_PACKAGE;

/// The names a component imports and exports at its top level
/// (`wasm-charm:charm/status@0.2.0`, `wasi:io/streams@0.2.6`, …), in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct World {
    pub imports: Vec<String>,
    pub exports: Vec<String>,
}

impl World {
    /// Read the top level of the component `wasm`: the sections of modules
    /// and components nested in it are skipped.
    pub fn read(wasm: &[u8]) -> Result<World, String> {
        if wasm.get(4..8) != Some([0x0d, 0x00, 0x01, 0x00].as_slice()) {
            return Err(if wasm.starts_with(b"\0asm") {
                "a core WebAssembly module, not a component".to_string()
            } else {
                "not a WebAssembly component".to_string()
            });
        }
        let mut world = World::default();
        let mut depth = 0usize;
        for payload in wasmparser::Parser::new(0).parse_all(wasm) {
            use wasmparser::Payload;
            match payload.map_err(|e| format!("not a valid component: {e}"))? {
                Payload::Version { .. } => depth += 1,
                Payload::End(_) => depth = depth.saturating_sub(1),
                Payload::ComponentImportSection(reader) if depth == 1 => {
                    for import in reader {
                        let import = import.map_err(|e| format!("an unreadable import: {e}"))?;
                        world.imports.push(import.name.name.to_string());
                    }
                }
                Payload::ComponentExportSection(reader) if depth == 1 => {
                    for export in reader {
                        let export = export.map_err(|e| format!("an unreadable export: {e}"))?;
                        world.exports.push(export.name.name.to_string());
                    }
                }
                _ => {}
            }
        }
        Ok(world)
    }

    /// The versions of this host's WIT package (`wasm-charm:charm`) the
    /// component names, each with the interfaces named at it, sorted.
    pub fn charm_versions(&self) -> Vec<(String, Vec<String>)> {
        let prefix = format!("{WIT_PACKAGE}/");
        let mut versions: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for name in self.imports.iter().chain(&self.exports) {
            if let Some(rest) = name.strip_prefix(&prefix) {
                let (interface, version) = rest.split_once('@').unwrap_or((rest, ""));
                versions
                    .entry(version.to_string())
                    .or_default()
                    .push(interface.to_string());
            }
        }
        versions.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_modules_and_other_files_are_named_as_such() {
        assert_eq!(
            World::read(b"\0asm\x01\0\0\0").unwrap_err(),
            "a core WebAssembly module, not a component"
        );
        assert_eq!(
            World::read(b"PK\x03\x04").unwrap_err(),
            "not a WebAssembly component"
        );
        let e = World::read(b"\0asm\x0d\x00\x01\x00\x0b\xff").unwrap_err();
        assert!(e.starts_with("not a valid component"), "{e}");
    }

    #[test]
    fn versions_group_interfaces() {
        let world = World {
            imports: vec![
                "wasm-charm:charm/status@0.2.0".into(),
                "wasi:io/streams@0.2.6".into(),
                "wasm-charm:charm/model@0.2.0".into(),
            ],
            exports: vec!["wasm-charm:charm/handlers@0.3.0".into()],
        };
        assert_eq!(
            world.charm_versions(),
            [
                ("0.2.0".to_string(), vec!["status".into(), "model".into()]),
                ("0.3.0".to_string(), vec!["handlers".to_string()]),
            ]
        );
    }
}
