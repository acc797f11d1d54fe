//! Reading YAML text into [`Node`]s.

use super::{Node, YamlError};

/// Read `text` as one YAML document.
pub(crate) fn parse(text: &str) -> Result<Node, YamlError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines: Vec<String> = Vec::new();
    let mut started = false;
    for (number, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.starts_with("---") && (line.len() == 3 || line[3..].starts_with(' ')) {
            if started {
                return Err(YamlError::at(number, "a second document is not supported"));
            }
            started = true;
            // Content after `--- ` on the marker's line.
            let rest = line[3..].trim_start();
            lines.push(if rest.is_empty() || rest.starts_with('#') {
                String::new()
            } else {
                rest.to_string()
            });
            continue;
        }
        if line == "..." {
            break;
        }
        if !started && line.starts_with('%') {
            lines.push(String::new());
            continue;
        }
        if !line.trim().is_empty() && !line.trim_start().starts_with('#') {
            started = true;
        }
        lines.push(line.to_string());
    }
    let mut parser = Parser { lines, pos: 0 };
    parser.skip_blank()?;
    let Some(indent) = parser.indent_here()? else {
        return Ok(Node::Null);
    };
    let node = parser.block(indent, 0)?;
    parser.skip_blank()?;
    if parser.pos < parser.lines.len() {
        return Err(YamlError::at(
            parser.pos,
            format!(
                "unexpected `{}` (bad indentation?)",
                parser.lines[parser.pos].trim()
            ),
        ));
    }
    Ok(node)
}

struct Parser {
    lines: Vec<String>,
    pos: usize,
}

/// Whether `line` holds nothing but spaces or a comment.
fn is_blank(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.is_empty() || trimmed.starts_with('#')
}

/// The text of `rest` up to a comment (a `#` after a space, outside
/// quotes is not looked for: this is for plain text only), trimmed.
fn strip_comment(rest: &str) -> &str {
    if rest.starts_with('#') {
        return "";
    }
    match rest.find(" #").or_else(|| rest.find("\t#")) {
        Some(i) => rest[..i].trim(),
        None => rest.trim(),
    }
}

/// Whether `content` (a line without its indentation) starts a sequence
/// item.
fn is_item(content: &str) -> bool {
    content == "-" || content.starts_with("- ") || content.starts_with("-\t")
}

/// A mapping entry's key and the rest of its line after `:`, if `content`
/// is one.
fn split_key(content: &str) -> Option<(Node, &str)> {
    let first = content.chars().next()?;
    if first == '"' || first == '\'' {
        let end = quoted_end(content)?;
        let rest = content[end..].trim_start();
        let after = rest.strip_prefix(':')?;
        if !(after.is_empty() || after.starts_with([' ', '\t'])) {
            return None;
        }
        let key = unquote(&content[..end]).ok()?;
        return Some((key, after));
    }
    if "[{&*!|>%@`".contains(first) || is_item(content) {
        return None;
    }
    let plain = strip_comment(content);
    let colon = plain
        .char_indices()
        .find(|&(i, c)| {
            c == ':'
                && plain[i + 1..]
                    .chars()
                    .next()
                    .is_none_or(|n| n == ' ' || n == '\t')
        })
        .map(|(i, _)| i)?;
    let key = plain[..colon].trim_end();
    Some((
        Node::Scalar {
            text: key.to_string(),
            plain: true,
        },
        &content[colon + 1..],
    ))
}

/// The byte just past the closing quote of the quoted scalar `text` starts
/// with, if it closes on this line.
fn quoted_end(text: &str) -> Option<usize> {
    let quote = text.chars().next()?;
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        if quote == '"' && c == '\\' {
            chars.next();
        } else if c == quote {
            if quote == '\'' && text[i + 1..].starts_with('\'') {
                chars.next();
                continue;
            }
            return Some(i + 1);
        }
    }
    None
}

/// The quoted scalar `text` (quotes included), its line breaks folded.
fn unquote(text: &str) -> Result<Node, String> {
    let quote = text.chars().next().unwrap_or('"');
    let inner = &text[1..text.len() - 1];
    let folded = fold_quoted(inner, quote == '"');
    let text = if quote == '"' {
        unescape(&folded)?
    } else {
        folded.replace("''", "'")
    };
    Ok(Node::Scalar { text, plain: false })
}

/// Fold the line breaks of a quoted scalar's text: a break between two
/// lines is a space, each empty line a newline; an escaped break (`\` at
/// the end of a double-quoted line) is nothing.
fn fold_quoted(inner: &str, escapes: bool) -> String {
    let segments: Vec<&str> = inner.split('\n').collect();
    if segments.len() == 1 {
        return inner.to_string();
    }
    let mut out = String::new();
    let last = segments.len() - 1;
    let mut joined_by_escape = false;
    let mut empties = 0;
    for (i, segment) in segments.iter().enumerate() {
        let mut segment = if i == 0 {
            *segment
        } else {
            segment.trim_start()
        };
        if i != last {
            segment = segment.trim_end_matches([' ', '\t']);
        }
        if i != 0 && i != last && segment.is_empty() {
            empties += 1;
            continue;
        }
        if i != 0 && !joined_by_escape {
            if empties > 0 {
                out.extend(std::iter::repeat_n('\n', empties));
            } else {
                out.push(' ');
            }
        }
        empties = 0;
        let trailing = segment.len() - segment.trim_end_matches('\\').len();
        joined_by_escape = escapes && i != last && trailing % 2 == 1;
        if joined_by_escape {
            segment = &segment[..segment.len() - 1];
        }
        out.push_str(segment);
    }
    out
}

/// The escapes of a double-quoted scalar.
fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escape = chars
            .next()
            .ok_or("a double-quoted scalar ends with `\\`")?;
        let hex = |chars: &mut std::str::Chars<'_>, digits: usize| -> Result<char, String> {
            let code: String = chars.by_ref().take(digits).collect();
            u32::from_str_radix(&code, 16)
                .ok()
                .filter(|_| code.len() == digits)
                .and_then(char::from_u32)
                .ok_or_else(|| format!("invalid escape `\\{escape}{code}`"))
        };
        out.push(match escape {
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            't' | '\t' => '\t',
            'n' => '\n',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'r' => '\r',
            'e' => '\u{1b}',
            ' ' => ' ',
            '"' => '"',
            '/' => '/',
            '\\' => '\\',
            'N' => '\u{85}',
            '_' => '\u{a0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            'x' => hex(&mut chars, 2)?,
            'u' => hex(&mut chars, 4)?,
            'U' => hex(&mut chars, 8)?,
            other => return Err(format!("invalid escape `\\{other}`")),
        });
    }
    Ok(out)
}

impl Parser {
    fn skip_blank(&mut self) -> Result<(), YamlError> {
        while self.pos < self.lines.len() && is_blank(&self.lines[self.pos]) {
            self.pos += 1;
        }
        Ok(())
    }

    /// The indentation of the current line, which is not blank; `None` at
    /// the end.
    fn indent_here(&self) -> Result<Option<usize>, YamlError> {
        let Some(line) = self.lines.get(self.pos) else {
            return Ok(None);
        };
        let indent = line.len() - line.trim_start_matches(' ').len();
        if line[indent..].starts_with('\t') {
            return Err(YamlError::at(self.pos, "a tab in indentation"));
        }
        Ok(Some(indent))
    }

    /// The next non-blank line's indentation, without moving.
    fn next_indent(&self) -> Result<Option<usize>, YamlError> {
        let mut probe = self.pos;
        while probe < self.lines.len() && is_blank(&self.lines[probe]) {
            probe += 1;
        }
        match self.lines.get(probe) {
            None => Ok(None),
            Some(line) => {
                let indent = line.len() - line.trim_start_matches(' ').len();
                if line[indent..].starts_with('\t') {
                    return Err(YamlError::at(probe, "a tab in indentation"));
                }
                Ok(Some(indent))
            }
        }
    }

    fn content(&self, indent: usize) -> &str {
        &self.lines[self.pos][indent..]
    }

    /// The block node whose first line is the current one, at `indent`.
    /// `parent` is the least indentation a continuation line of a scalar
    /// must have.
    fn block(&mut self, indent: usize, parent: usize) -> Result<Node, YamlError> {
        let content = self.content(indent).to_string();
        if is_item(&content) {
            self.sequence(indent)
        } else if split_key(&content).is_some() {
            self.mapping(indent)
        } else {
            self.pos += 1;
            self.inline(content.trim(), parent)
        }
    }

    fn mapping(&mut self, indent: usize) -> Result<Node, YamlError> {
        let mut entries = Vec::new();
        loop {
            self.skip_blank()?;
            if self.indent_here()? != Some(indent) {
                break;
            }
            let content = self.content(indent).to_string();
            if is_item(&content) {
                break;
            }
            let line = self.pos;
            let (key, rest) = split_key(&content).ok_or_else(|| {
                YamlError::at(
                    line,
                    format!("expected `key: value`, found `{}`", content.trim()),
                )
            })?;
            self.pos += 1;
            let value = self.value(rest.trim(), indent, true)?;
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }

    fn sequence(&mut self, indent: usize) -> Result<Node, YamlError> {
        let mut items = Vec::new();
        loop {
            self.skip_blank()?;
            if self.indent_here()? != Some(indent) {
                break;
            }
            let content = self.content(indent).to_string();
            if !is_item(&content) {
                break;
            }
            let rest = &content[1..];
            let text = rest.trim_start();
            if text.is_empty() || text.starts_with('#') {
                self.pos += 1;
                items.push(self.value("", indent, false)?);
                continue;
            }
            // The item's content starts at this column: a mapping or a
            // sequence there continues on the lines below at the same
            // column.
            let column = indent + 1 + (rest.len() - text.len());
            if is_item(text) || split_key(text).is_some() {
                self.lines[self.pos] = format!("{}{text}", " ".repeat(column));
                items.push(self.block(column, indent + 1)?);
            } else {
                self.pos += 1;
                items.push(self.inline(text, indent + 1)?);
            }
        }
        Ok(Node::Seq(items))
    }

    /// The value after a mapping key's `:` (or an empty sequence item's
    /// `-`): `rest` is the rest of its line, already consumed.
    fn value(&mut self, rest: &str, indent: usize, in_mapping: bool) -> Result<Node, YamlError> {
        if !rest.is_empty() && !rest.starts_with('#') {
            return self.inline(rest, indent + 1);
        }
        match self.next_indent()? {
            Some(next) if next > indent => {
                self.skip_blank()?;
                self.block(next, indent + 1)
            }
            // A sequence may sit at its key's own indentation.
            Some(next) if next == indent && in_mapping => {
                let mut probe = self.pos;
                while is_blank(&self.lines[probe]) {
                    probe += 1;
                }
                if is_item(&self.lines[probe][indent..]) {
                    self.pos = probe;
                    self.sequence(indent)
                } else {
                    Ok(Node::Null)
                }
            }
            _ => Ok(Node::Null),
        }
    }

    /// A value that starts on a line already consumed, with `text` the
    /// rest of that line: a quoted, flow, block or plain scalar, whose
    /// continuation lines are indented at least `parent`.
    fn inline(&mut self, text: &str, parent: usize) -> Result<Node, YamlError> {
        let line = self.pos.saturating_sub(1);
        let first = text.chars().next().unwrap_or(' ');
        match first {
            '"' | '\'' => self.quoted(text, line),
            '[' | '{' => self.flow(text, line),
            '|' | '>' => self.block_scalar(text, parent, line),
            '&' | '*' | '!' => Err(YamlError::at(
                line,
                "anchors, aliases and tags are not supported",
            )),
            _ => self.plain(strip_comment(text), parent),
        }
    }

    /// A quoted scalar that starts with `text` and may go on over the next
    /// lines.
    fn quoted(&mut self, text: &str, line: usize) -> Result<Node, YamlError> {
        let mut raw = text.to_string();
        loop {
            if let Some(end) = quoted_end(&raw) {
                let rest = raw[end..].trim();
                if !(rest.is_empty() || rest.starts_with('#')) {
                    return Err(YamlError::at(
                        line,
                        format!("unexpected `{rest}` after a quoted scalar"),
                    ));
                }
                return unquote(&raw[..end]).map_err(|e| YamlError::at(line, e));
            }
            let Some(next) = self.lines.get(self.pos) else {
                return Err(YamlError::at(line, "a quoted scalar that does not end"));
            };
            raw.push('\n');
            raw.push_str(next);
            self.pos += 1;
        }
    }

    /// A flow collection that starts with `text` and may go on over the
    /// next lines.
    fn flow(&mut self, text: &str, line: usize) -> Result<Node, YamlError> {
        let mut raw = text.to_string();
        loop {
            let mut reader = Flow {
                chars: raw.chars().collect(),
                pos: 0,
            };
            match reader.value() {
                Ok(node) => {
                    let rest: String = reader.chars[reader.pos..].iter().collect();
                    let rest = rest.trim();
                    if !(rest.is_empty() || rest.starts_with('#')) {
                        return Err(YamlError::at(
                            line,
                            format!("unexpected `{rest}` after a flow collection"),
                        ));
                    }
                    return Ok(node);
                }
                Err(FlowError::End) => {
                    let Some(next) = self.lines.get(self.pos) else {
                        return Err(YamlError::at(line, "a flow collection that does not end"));
                    };
                    raw.push(' ');
                    raw.push_str(strip_comment(next));
                    self.pos += 1;
                }
                Err(FlowError::Bad(why)) => return Err(YamlError::at(line, why)),
            }
        }
    }

    /// A literal (`|`) or folded (`>`) block scalar whose header is
    /// `header`; its lines are indented deeper than `parent - 1`.
    fn block_scalar(
        &mut self,
        header: &str,
        parent: usize,
        line: usize,
    ) -> Result<Node, YamlError> {
        let header = strip_comment(header);
        let folded = header.starts_with('>');
        let mut chomp = ' ';
        let mut explicit = None;
        for c in header[1..].chars() {
            match c {
                '-' | '+' => chomp = c,
                '1'..='9' => explicit = c.to_digit(10).map(|d| d as usize),
                _ => {
                    return Err(YamlError::at(
                        line,
                        format!("invalid block scalar header `{header}`"),
                    ));
                }
            }
        }
        let base = parent.saturating_sub(1);
        let mut indent = explicit.map(|d| base + d);
        let mut lines: Vec<String> = Vec::new();
        while let Some(raw) = self.lines.get(self.pos) {
            let spaces = raw.len() - raw.trim_start_matches(' ').len();
            if raw.trim().is_empty() {
                lines.push(String::new());
                self.pos += 1;
                continue;
            }
            let want = *indent.get_or_insert(spaces);
            if spaces < want || want < parent {
                break;
            }
            lines.push(raw[want..].to_string());
            self.pos += 1;
        }
        // Trailing empty lines belong to the chomping, not to the text.
        let kept = lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        let trailing = lines.len() - kept;
        lines.truncate(kept);
        let mut text = String::new();
        if folded {
            // Lines of a paragraph are joined with a space; each empty
            // line is a newline; the breaks around more-indented lines
            // stay.
            let mut previous: Option<bool> = None;
            let mut empties = 0;
            for l in &lines {
                if l.is_empty() {
                    empties += 1;
                    continue;
                }
                let more = l.starts_with([' ', '\t']);
                match previous {
                    Some(previous_more) if previous_more || more => text.push('\n'),
                    Some(_) if empties == 0 => text.push(' '),
                    _ => {}
                }
                text.extend(std::iter::repeat_n('\n', empties));
                empties = 0;
                previous = Some(more);
                text.push_str(l);
            }
        } else {
            text = lines.join("\n");
        }
        match chomp {
            '-' => {}
            '+' => {
                if kept > 0 {
                    text.push('\n');
                }
                text.extend(std::iter::repeat_n('\n', trailing));
            }
            _ => {
                if kept > 0 {
                    text.push('\n');
                }
            }
        }
        Ok(Node::Scalar { text, plain: false })
    }

    /// A plain scalar that starts with `first`, folding the lines that
    /// continue it (indented at least `parent`, not blank).
    fn plain(&mut self, first: &str, parent: usize) -> Result<Node, YamlError> {
        let mut text = first.to_string();
        let mut probe = self.pos;
        let mut empties = 0;
        while let Some(raw) = self.lines.get(probe) {
            if raw.trim().is_empty() {
                empties += 1;
                probe += 1;
                continue;
            }
            let spaces = raw.len() - raw.trim_start_matches(' ').len();
            let content = raw.trim();
            if spaces < parent || content.starts_with('#') || first.is_empty() {
                break;
            }
            if split_key(content).is_some() {
                return Err(YamlError::at(
                    probe,
                    format!("unexpected `{content}` (bad indentation?)"),
                ));
            }
            if empties > 0 {
                text.extend(std::iter::repeat_n('\n', empties));
            } else {
                text.push(' ');
            }
            text.push_str(strip_comment(content));
            empties = 0;
            probe += 1;
            self.pos = probe;
        }
        if text.is_empty() {
            return Ok(Node::Null);
        }
        Ok(Node::Scalar { text, plain: true })
    }
}

/// Why a flow collection could not be read: it goes on past the text, or
/// it is not YAML.
enum FlowError {
    End,
    Bad(String),
}

struct Flow {
    chars: Vec<char>,
    pos: usize,
}

impl Flow {
    fn skip_space(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn value(&mut self) -> Result<Node, FlowError> {
        self.skip_space();
        match self.peek() {
            None => Err(FlowError::End),
            Some('[') => self.seq(),
            Some('{') => self.map(),
            Some(q @ ('"' | '\'')) => self.quoted(q),
            Some(_) => self.plain(),
        }
    }

    /// `[a, b]`, from its opening bracket.
    fn seq(&mut self) -> Result<Node, FlowError> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                None => return Err(FlowError::End),
                Some(']') => {
                    self.pos += 1;
                    return Ok(Node::Seq(items));
                }
                _ => {}
            }
            items.push(self.value()?);
            self.separator(']')?;
        }
    }

    /// `{k: v, k2}`, from its opening brace; a key without a value is null.
    fn map(&mut self) -> Result<Node, FlowError> {
        self.pos += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                None => return Err(FlowError::End),
                Some('}') => {
                    self.pos += 1;
                    return Ok(Node::Map(entries));
                }
                _ => {}
            }
            let key = self.value()?;
            self.skip_space();
            let value = if self.peek() == Some(':') {
                self.pos += 1;
                self.skip_space();
                if matches!(self.peek(), Some(',' | '}')) {
                    Node::Null
                } else {
                    self.value()?
                }
            } else {
                Node::Null
            };
            entries.push((key, value));
            self.separator('}')?;
        }
    }

    /// A quoted scalar, from its opening quote `q`.
    fn quoted(&mut self, q: char) -> Result<Node, FlowError> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err(FlowError::End),
                Some('\\') if q == '"' => self.pos += 2,
                Some(c) if c == q => {
                    if q == '\'' && self.chars.get(self.pos + 1) == Some(&'\'') {
                        self.pos += 2;
                        continue;
                    }
                    self.pos += 1;
                    break;
                }
                Some(_) => self.pos += 1,
            }
        }
        let raw: String = self.chars[start..self.pos].iter().collect();
        unquote(&raw).map_err(FlowError::Bad)
    }

    /// A plain scalar: up to a flow indicator or a `:` that ends a key.
    fn plain(&mut self) -> Result<Node, FlowError> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            let ends_key = c == ':'
                && self
                    .chars
                    .get(self.pos + 1)
                    .is_none_or(|n| n.is_whitespace() || ",[]{}".contains(*n));
            if ",[]{}".contains(c) || ends_key {
                break;
            }
            self.pos += 1;
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        let text = text.trim();
        if text.is_empty() {
            return Err(FlowError::Bad(format!(
                "unexpected `{}` in a flow collection",
                self.peek().unwrap_or(' ')
            )));
        }
        Ok(Node::Scalar {
            text: text.to_string(),
            plain: true,
        })
    }

    /// After an item: `,` or the closing bracket (left for the caller).
    fn separator(&mut self, close: char) -> Result<(), FlowError> {
        self.skip_space();
        match self.peek() {
            None => Err(FlowError::End),
            Some(',') => {
                self.pos += 1;
                Ok(())
            }
            Some(c) if c == close => Ok(()),
            Some(c) => Err(FlowError::Bad(format!(
                "expected `,` or `{close}` in a flow collection, found `{c}`"
            ))),
        }
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
