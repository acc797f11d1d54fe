//! A component's function names, left out of what is compiled. Each core
//! module's `name` section (a debugging aid: the names of its functions,
//! locals, types) becomes, in the artifact, one entry per named function
//! that every load deserializes, interns and checks as UTF-8: for a
//! componentize-py component, some 23,000 names loaded at every event for
//! backtraces nobody reads (a trap is reported by its kind and the guest's
//! own stderr, a Python traceback included). The component file itself is
//! kept as built; only the bytes handed to the compiler go without them.
//!
//! Pure: bytes in, bytes out. Custom sections cannot change what a module
//! does, so dropping one changes no index, offset or behaviour: every other
//! section is copied as it is.

/// The custom section that holds a core module's names.
const NAME_SECTION: &str = "name";
/// Section ids: a custom section (modules and components alike), a core
/// module inside a component, a component inside a component.
const CUSTOM: u8 = 0;
const CORE_MODULE: u8 = 1;
const COMPONENT: u8 = 4;

const MAGIC: &[u8; 4] = b"\0asm";
const MODULE_VERSION: [u8; 4] = [0x01, 0x00, 0x00, 0x00];
const COMPONENT_VERSION: [u8; 4] = [0x0d, 0x00, 0x01, 0x00];

/// `wasm` without the `name` section of any core module in it, nested
/// components' included. `None` when `wasm` is not a well-formed module or
/// component as far as sections go: it is then compiled as it is, and the
/// compiler says what is wrong with it.
pub fn without_function_names(wasm: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(wasm.len());
    strip(wasm, &mut out)?;
    Some(out)
}

/// Append `binary` (a module or a component, header included) to `out`,
/// dropping core modules' name sections.
fn strip(binary: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let (header, mut rest) = binary.split_at_checked(8)?;
    if &header[..4] != MAGIC {
        return None;
    }
    let version: [u8; 4] = header[4..].try_into().ok()?;
    let is_component = match version {
        MODULE_VERSION => false,
        COMPONENT_VERSION => true,
        _ => return None,
    };
    out.extend_from_slice(header);
    while let Some((&id, after_id)) = rest.split_first() {
        let (size, after_size) = read_u32(after_id)?;
        let (payload, next) = after_size.split_at_checked(usize::try_from(size).ok()?)?;
        rest = next;
        let nested = is_component && (id == CORE_MODULE || id == COMPONENT);
        if nested {
            let mut inner = Vec::with_capacity(payload.len());
            strip(payload, &mut inner)?;
            out.push(id);
            write_u32(out, u32::try_from(inner.len()).ok()?);
            out.extend_from_slice(&inner);
        } else if !is_component && id == CUSTOM && custom_name(payload)? == NAME_SECTION.as_bytes()
        {
            // Dropped.
        } else {
            out.push(id);
            out.extend_from_slice(&after_id[..after_id.len() - after_size.len()]);
            out.extend_from_slice(payload);
        }
    }
    Some(())
}

/// The name a custom section's payload starts with.
fn custom_name(payload: &[u8]) -> Option<&[u8]> {
    let (len, rest) = read_u32(payload)?;
    rest.get(..usize::try_from(len).ok()?)
}

/// An unsigned LEB128 of at most 32 bits, and what follows it.
fn read_u32(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let mut value: u32 = 0;
    for (i, &byte) in bytes.iter().enumerate().take(5) {
        let bits = u32::from(byte & 0x7f);
        let shift = 7 * i as u32;
        // The fifth byte holds the top 4 bits only.
        if i == 4 && bits > 0x0f {
            return None;
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            return Some((value, &bytes[i + 1..]));
        }
    }
    None
}

fn write_u32(out: &mut Vec<u8>, mut value: u32) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[cfg(test)]
#[path = "names_tests.rs"]
mod tests;
