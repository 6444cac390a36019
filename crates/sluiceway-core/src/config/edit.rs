//! Changing one key of `sluiceway.yaml` the way a person would by hand, so that a pull
//! request that changes a setting shows only that setting in its diff.
//!
//! The file is never rewritten from a parsed model: every line the change does not touch
//! stays byte for byte, comments included. The parser finds where the key stands; the
//! edit works on lines around it; and every edit is checked by reading the result back,
//! which must hold exactly the old settings with the one change made. An edit that would
//! not is refused rather than written.

use saphyr::{LoadableYamlNode, MarkedYamlOwned, ScalarOwned, Yaml, YamlDataOwned, YamlEmitter};
use serde_json::{Map, Value};

use super::document::{Document, KeyPath, Segment};

/// Why a key could not be changed in the file's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("the file is not YAML the editor can read ({0})")]
    Unreadable(String),
    #[error("{0}: the file does not hold a mapping there, so the key cannot be set")]
    NotAMapping(KeyPath),
    #[error(
        "{0}: the file is written in a way the editor cannot change without touching other lines; change it by hand"
    )]
    Unsure(KeyPath),
}

/// `text` with the key at `path` set to `value`, or taken out when `value` is `null`
/// (the action's default holds again; a mapping left empty goes with it). Every other
/// line stays as it was; a setting already so answers `text` unchanged.
pub fn set(text: &str, path: &KeyPath, value: &Value) -> Result<String, EditError> {
    let before = Document::parse(text)
        .map_err(|errors| EditError::Unreadable(errors[0].message.clone()))?
        .value;
    let mut expected = before.clone();
    set_in(&mut expected, &path.0, value).ok_or_else(|| EditError::NotAMapping(path.clone()))?;
    if expected == before {
        return Ok(text.to_owned());
    }
    let edited = edit(text, path, value, &before)?;
    match Document::parse(&edited) {
        Ok(after) if after.value == expected => Ok(edited),
        _ => Err(EditError::Unsure(path.clone())),
    }
}

/// The JSON counterpart of an edit: what the file must read as afterwards. `None` when
/// a step on the way is not a mapping (or a sequence item that exists).
fn set_in(node: &mut Value, path: &[Segment], value: &Value) -> Option<()> {
    let (first, rest) = path.split_first()?;
    match first {
        Segment::Index(i) => set_in(node.as_array_mut()?.get_mut(*i)?, rest, value),
        Segment::Key(key) => {
            if node.is_null() {
                *node = Value::Object(Map::new());
            }
            let map = node.as_object_mut()?;
            if rest.is_empty() {
                if value.is_null() {
                    map.remove(key);
                } else {
                    map.insert(key.clone(), value.clone());
                }
                return Some(());
            }
            if value.is_null() && !map.contains_key(key) {
                return Some(());
            }
            let child = map.entry(key.clone()).or_insert(Value::Null);
            set_in(child, rest, value)?;
            // A mapping a default emptied goes, as its key's lines do (a stack entry,
            // behind an index, always keeps its path).
            if value.is_null() && child.as_object().is_some_and(Map::is_empty) {
                map.remove(key);
            }
            Some(())
        }
    }
}

/// One edit on the text, recursing into the parent when the parent must change shape.
fn edit(text: &str, path: &KeyPath, value: &Value, json: &Value) -> Result<String, EditError> {
    let unsure = || EditError::Unsure(path.clone());
    let Some((Segment::Key(key), parents)) = path.0.split_last() else {
        return Err(unsure());
    };
    let parent_path = KeyPath(parents.to_vec());
    let tree = load(text)?;
    let mut lines = Lines::of(text);
    let parent = match &tree {
        Some(root) => locate(root, parents),
        None if parents.is_empty() => None,
        None => return edit(text, &parent_path, &single(key, value), json),
    };
    let Some(parent) = parent else {
        if parents.is_empty() {
            // An empty file: the key starts it.
            if value.is_null() {
                return Ok(text.to_owned());
            }
            lines.insert(lines.content_end(), entry_lines(0, key, value));
            return Ok(lines.text());
        }
        if value.is_null() {
            return Ok(text.to_owned());
        }
        return edit(text, &parent_path, &single(key, value), json);
    };
    let parent_json = pointer(json, parents).ok_or_else(unsure)?;
    match &parent.data {
        YamlDataOwned::Mapping(entries) if !is_flow(parent, &lines) => {
            let found = entries
                .iter()
                .position(|(k, _)| scalar_text(k).as_deref() == Some(key.as_str()));
            match found {
                Some(index) if value.is_null() => {
                    let keeps_parent = matches!(parents.last(), None | Some(Segment::Index(_)));
                    if entries.len() == 1 && !keeps_parent {
                        return edit(text, &parent_path, &Value::Null, json);
                    }
                    remove(&mut lines, entries, index).ok_or_else(unsure)?;
                    Ok(lines.text())
                }
                Some(index) => {
                    let (key_node, value_node) = entries.iter().nth(index).expect("found");
                    let old = parent_json.get(key).ok_or_else(unsure)?;
                    replace(text, lines, path, key_node, value_node, old, value, json)
                }
                None if value.is_null() => Ok(text.to_owned()),
                None => {
                    let (first, _) = entries.iter().next().ok_or_else(unsure)?;
                    let indent = first.span.start.col();
                    let (last, _) = entries.iter().next_back().ok_or_else(unsure)?;
                    let at = lines.extent(line_of(last), last.span.start.col(), true);
                    lines.insert(at, entry_lines(indent, key, value));
                    Ok(lines.text())
                }
            }
        }
        // A flow mapping is unfolded into block style first, then edited as one.
        YamlDataOwned::Mapping(entries) if !parents.is_empty() && !entries.is_empty() => {
            let unfolded =
                unfold(text, &parent_path, tree.as_ref().ok_or_else(unsure)?).ok_or_else(unsure)?;
            edit(&unfolded, path, value, json)
        }
        // An empty mapping, or a key with nothing under it: the parent is written again
        // with the key set.
        YamlDataOwned::Mapping(_) | YamlDataOwned::Value(ScalarOwned::Null)
            if !parents.is_empty() =>
        {
            let mut whole = parent_json.clone();
            set_in(&mut whole, &[Segment::Key(key.clone())], value).ok_or_else(unsure)?;
            if whole.as_object().is_some_and(Map::is_empty)
                && matches!(parents.last(), Some(Segment::Key(_)))
            {
                whole = Value::Null;
            }
            edit(text, &parent_path, &whole, json)
        }
        YamlDataOwned::Mapping(_) | YamlDataOwned::Value(ScalarOwned::Null) => Err(unsure()),
        _ => Err(EditError::NotAMapping(parent_path)),
    }
}

/// Puts `value` where the key's old value stood. Mappings are changed key by key and
/// block sequences item by item, so what stays keeps its lines and its comments.
#[allow(clippy::too_many_arguments)]
fn replace(
    text: &str,
    mut lines: Lines,
    path: &KeyPath,
    key_node: &MarkedYamlOwned,
    value_node: &MarkedYamlOwned,
    old: &Value,
    value: &Value,
    json: &Value,
) -> Result<String, EditError> {
    let unsure = || EditError::Unsure(path.clone());
    let block = !is_flow(value_node, &lines) && line_of(value_node) > line_of(key_node);
    match (old, value, &value_node.data) {
        (Value::Object(old), Value::Object(new), YamlDataOwned::Mapping(_))
            if block && !new.is_empty() =>
        {
            let mut text = text.to_owned();
            let mut json = json.clone();
            let removed = old
                .keys()
                .filter(|k| !new.contains_key(*k))
                .map(|k| (k, &Value::Null));
            for (k, v) in new.iter().chain(removed) {
                let child = path.key(k);
                text = edit(&text, &child, v, &json)?;
                set_in(&mut json, &child.0, v).ok_or_else(unsure)?;
            }
            Ok(text)
        }
        (Value::Array(old), Value::Array(new), YamlDataOwned::Sequence(items))
            if block && !new.is_empty() =>
        {
            merge_items(&mut lines, items, old, new).ok_or_else(unsure)?;
            Ok(lines.text())
        }
        _ => {
            let flow = (!block && is_flow(value_node, &lines))
                .then(|| flow_list(value))
                .flatten();
            let rendered = match flow.or_else(|| inline(value)) {
                Some(text) => Rendered::Inline(text),
                None => Rendered::Block(emit(value)),
            };
            put(&mut lines, key_node, rendered, block).ok_or_else(unsure)?;
            Ok(lines.text())
        }
    }
}

/// A value as it is to be written: on its key's line, or on lines of its own below it.
enum Rendered {
    Inline(String),
    Block(Vec<String>),
}

/// Writes `rendered` in place of the value of the key at `key_node`, keeping the
/// comment on the key's line and, when the old value was a block of its own, the
/// comment lines inside it.
fn put(
    lines: &mut Lines,
    key_node: &MarkedYamlOwned,
    rendered: Rendered,
    block: bool,
) -> Option<()> {
    let key_line = line_of(key_node);
    let key_col = key_node.span.start.col();
    let end = lines.extent(key_line, key_col, true);
    let line = &lines.0[key_line];
    let colon = find_colon(line, key_col)?;
    let (head, rest) = line.split_at(colon + 1);
    let comment = comment_of(rest);
    let kept: Vec<String> = lines.0[key_line + 1..end]
        .iter()
        .filter(|l| block && l.trim_start().starts_with('#'))
        .cloned()
        .collect();
    let mut new_lines = Vec::new();
    match rendered {
        Rendered::Inline(text) => new_lines.push(format!("{head} {text}{comment}")),
        Rendered::Block(body) => {
            new_lines.push(format!("{head}{comment}"));
            let pad = " ".repeat(key_col + 2);
            new_lines.extend(body.into_iter().map(|l| format!("{pad}{l}")));
        }
    }
    new_lines.extend(kept);
    lines.0.splice(key_line..end, new_lines);
    Some(())
}

/// A flow mapping written on one line, written again in block style in its own order,
/// so that a key can be set in it line by line.
fn unfold(text: &str, path: &KeyPath, root: &MarkedYamlOwned) -> Option<String> {
    let (key_node, value_node) = locate_entry(root, &path.0)?;
    let mut lines = Lines::of(text);
    let line = &lines.0[line_of(value_node)];
    let start = byte_at(line, value_node.span.start.col());
    let flow = &line[start..start + closing_bracket(&line[start..])? + 1];
    let docs = Yaml::load_from_str(flow).ok()?;
    let body = emit_yaml(docs.first()?);
    put(&mut lines, key_node, Rendered::Block(body), false)?;
    Some(lines.text())
}

/// Takes one entry out of a block mapping: its lines go; when it shares its line with a
/// sequence item's dash, the next entry moves up onto that line.
fn remove(
    lines: &mut Lines,
    entries: &saphyr::AnnotatedMappingOwned<MarkedYamlOwned>,
    index: usize,
) -> Option<()> {
    let (key_node, _) = entries.iter().nth(index)?;
    let key_line = line_of(key_node);
    let key_col = key_node.span.start.col();
    let end = lines.extent(key_line, key_col, true);
    let before: String = lines.0[key_line].chars().take(key_col).collect();
    if before.trim().is_empty() {
        lines.0.drain(key_line..end);
        return Some(());
    }
    if !before.trim_end().ends_with('-') {
        return None;
    }
    let (next, _) = entries.iter().nth(index + 1)?;
    let next_line = line_of(next);
    let next_col = next.span.start.col();
    let moved: String = lines.0[next_line].chars().skip(next_col).collect();
    let between: Vec<String> = lines.0[end..next_line].to_vec();
    let mut replacement = vec![format!("{before}{moved}")];
    replacement.extend(between.into_iter().filter(|l| !l.trim().is_empty()));
    lines.0.splice(key_line..=next_line, replacement);
    Some(())
}

/// A block sequence made `new` with the fewest lines touched: items that stay keep
/// their lines (and comments) in order, items that go lose theirs, new items are written
/// after the item before them.
fn merge_items(
    lines: &mut Lines,
    items: &[MarkedYamlOwned],
    old: &[Value],
    new: &[Value],
) -> Option<()> {
    // Each old item's lines, and the comment or blank lines before it.
    let mut spans = Vec::new();
    let mut previous_end = None;
    for item in items {
        let line = line_of(item);
        let col = item.span.start.col();
        let dash = lines.0[line]
            .char_indices()
            .take_while(|(i, _)| *i < byte_at(&lines.0[line], col))
            .filter(|(_, c)| *c == '-')
            .last()
            .map(|(i, _)| lines.0[line][..i].chars().count())?;
        let leading = previous_end.unwrap_or(line);
        let end = lines.extent(line, dash, false);
        spans.push((dash, leading, line, end));
        previous_end = Some(end);
    }
    let (dash, first, _, _) = *spans.first()?;
    let (_, _, _, last) = *spans.last()?;
    // Matched in order: each new item takes the first unused old item after the last
    // one matched that equals it.
    let mut matched = vec![None; new.len()];
    let mut after = 0;
    for (n, value) in new.iter().enumerate() {
        if let Some(k) = (after..old.len()).find(|k| old[*k] == *value) {
            matched[n] = Some(k);
            after = k + 1;
        }
    }
    let render = |value: &Value| block_lines(&Value::Array(vec![value.clone()]), dash);
    let mut out = Vec::new();
    let mut n = 0;
    // New items before the first kept one go before it.
    let kept_first = matched.iter().flatten().next().copied();
    for (k, (_, leading, line, end)) in spans.iter().enumerate() {
        out.extend(lines.0[*leading..*line].iter().cloned());
        if Some(k) == kept_first {
            while n < new.len() && matched[n].is_none() {
                out.extend(render(&new[n]));
                n += 1;
            }
        }
        if matched.get(n).copied().flatten() == Some(k) {
            out.extend(lines.0[*line..*end].iter().cloned());
            n += 1;
            while n < new.len() && matched[n].is_none() {
                out.extend(render(&new[n]));
                n += 1;
            }
        }
    }
    while n < new.len() {
        out.extend(render(&new[n]));
        n += 1;
    }
    lines.0.splice(first..last, out);
    Some(())
}

/// The file as lines without their endings, remembering the ending it uses.
struct Lines(Vec<String>, &'static str, bool);

impl Lines {
    fn of(text: &str) -> Lines {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let ends = text.ends_with('\n');
        let body = text.strip_suffix('\n').unwrap_or(text);
        let lines = if text.is_empty() {
            Vec::new()
        } else {
            body.split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
                .collect()
        };
        Lines(lines, newline, ends || text.is_empty())
    }

    fn text(&self) -> String {
        let mut text = self.0.join(self.1);
        if self.2 && !self.0.is_empty() {
            text.push_str(self.1);
        }
        text
    }

    fn insert(&mut self, at: usize, new: Vec<String>) {
        self.0.splice(at..at, new);
    }

    /// Past the last line that holds anything but a comment.
    fn content_end(&self) -> usize {
        self.0
            .iter()
            .rposition(|l| !l.trim().is_empty())
            .map_or(0, |i| i + 1)
    }

    /// Where what starts on `line` at `col` ends: the next line that holds something at
    /// `col` or left of it (a dash at `col` too, unless `dashes` — a block sequence may
    /// stand at its key's column), without the comments and blank lines that end it.
    fn extent(&self, line: usize, col: usize, dashes: bool) -> usize {
        let mut end = line + 1;
        for (j, text) in self.0.iter().enumerate().skip(line + 1) {
            let trimmed = text.trim_start();
            if trimmed.is_empty() {
                continue;
            }
            let indent = text.chars().count() - trimmed.chars().count();
            let dash = trimmed == "-" || trimmed.starts_with("- ");
            if indent > col || (dashes && indent == col && dash) {
                if !trimmed.starts_with('#') {
                    end = j + 1;
                }
                continue;
            }
            break;
        }
        end
    }
}

fn load(text: &str) -> Result<Option<MarkedYamlOwned>, EditError> {
    let docs = MarkedYamlOwned::load_from_str(text)
        .map_err(|e| EditError::Unreadable(e.info().to_owned()))?;
    Ok(docs.into_iter().next())
}

fn locate<'a>(root: &'a MarkedYamlOwned, path: &[Segment]) -> Option<&'a MarkedYamlOwned> {
    path.iter()
        .try_fold(root, |node, segment| match (segment, &node.data) {
            (Segment::Key(key), YamlDataOwned::Mapping(entries)) => entries
                .iter()
                .find(|(k, _)| scalar_text(k).as_deref() == Some(key.as_str()))
                .map(|(_, v)| v),
            (Segment::Index(i), YamlDataOwned::Sequence(items)) => items.get(*i),
            _ => None,
        })
}

/// The key and value nodes of the entry `path` ends with.
fn locate_entry<'a>(
    root: &'a MarkedYamlOwned,
    path: &[Segment],
) -> Option<(&'a MarkedYamlOwned, &'a MarkedYamlOwned)> {
    let (Segment::Key(key), parents) = path.split_last()? else {
        return None;
    };
    match &locate(root, parents)?.data {
        YamlDataOwned::Mapping(entries) => entries
            .iter()
            .find(|(k, _)| scalar_text(k).as_deref() == Some(key.as_str())),
        _ => None,
    }
}

/// The byte offset of the bracket that closes the one `text` starts with.
fn closing_bracket(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in text.char_indices() {
        match quote {
            Some(q) if c == q && !(q == '"' && previous == '\\') => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '{' | '[' => depth += 1,
                '}' | ']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
        previous = c;
    }
    None
}

fn pointer<'a>(json: &'a Value, path: &[Segment]) -> Option<&'a Value> {
    path.iter().try_fold(json, |node, segment| match segment {
        Segment::Key(key) => node.get(key),
        Segment::Index(i) => node.get(i),
    })
}

fn scalar_text(node: &MarkedYamlOwned) -> Option<String> {
    match &node.data {
        YamlDataOwned::Value(ScalarOwned::String(text)) => Some(text.clone()),
        YamlDataOwned::Value(ScalarOwned::Integer(n)) => Some(n.to_string()),
        YamlDataOwned::Value(ScalarOwned::Boolean(b)) => Some(b.to_string()),
        _ => None,
    }
}

fn single(key: &str, value: &Value) -> Value {
    Value::Object(Map::from_iter([(key.to_owned(), value.clone())]))
}

/// The 0-based line a node starts on.
fn line_of(node: &MarkedYamlOwned) -> usize {
    node.span.start.line().saturating_sub(1)
}

fn is_flow(node: &MarkedYamlOwned, lines: &Lines) -> bool {
    let line = line_of(node);
    lines
        .0
        .get(line)
        .and_then(|l| l.chars().nth(node.span.start.col()))
        .is_some_and(|c| c == '{' || c == '[')
}

fn byte_at(line: &str, col: usize) -> usize {
    line.char_indices().nth(col).map_or(line.len(), |(i, _)| i)
}

/// The byte offset of the `:` that ends the key starting at `col`.
fn find_colon(line: &str, col: usize) -> Option<usize> {
    let start = byte_at(line, col);
    let mut quote = None;
    let bytes = line.as_bytes();
    for (i, c) in line[start..].char_indices() {
        let at = start + i;
        match (quote, c) {
            (Some('"'), '\\') => {}
            (Some(q), c) if c == q && !(q == '"' && at > 0 && bytes[at - 1] == b'\\') => {
                quote = None
            }
            (Some(_), _) => {}
            (None, '"' | '\'') if at == start => quote = Some(c),
            (None, ':')
                if line[at + 1..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace) =>
            {
                return Some(at);
            }
            _ => {}
        }
    }
    None
}

/// The comment ending a value's text, with the blanks before it; empty when none.
fn comment_of(rest: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in rest.char_indices() {
        match quote {
            Some('"') if c == '\\' => {}
            Some(q) if c == q && !(q == '"' && previous == '\\') => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && previous.is_whitespace() => {
                let blanks = rest[..i].len() - rest[..i].trim_end().len();
                return &rest[i - blanks..];
            }
            None => {}
        }
        previous = c;
    }
    ""
}

/// A value written on its key's line: a scalar or an empty collection. `None` for what
/// needs lines of its own.
fn inline(value: &Value) -> Option<String> {
    match value {
        Value::Array(a) if !a.is_empty() => None,
        Value::Object(o) if !o.is_empty() => None,
        _ => Some(emit(value).join(" ")),
    }
}

/// A list of scalars written as a flow sequence, for a key whose list was written so.
fn flow_list(value: &Value) -> Option<String> {
    let items = value.as_array()?;
    let written: Option<Vec<String>> = items
        .iter()
        .map(|item| match item {
            Value::Array(_) | Value::Object(_) => None,
            // Flow indicators inside a plain scalar would end it: such text is quoted.
            Value::String(text) if text.contains([',', '[', ']', '{', '}']) => {
                Some(item.to_string())
            }
            _ => inline(item),
        })
        .collect();
    Some(format!("[{}]", written?.join(", ")))
}

/// `key: value`, or `key:` and the value's lines below it, at `indent`.
fn entry_lines(indent: usize, key: &str, value: &Value) -> Vec<String> {
    let pad = " ".repeat(indent);
    let key = inline(&Value::String(key.to_owned())).expect("a scalar");
    match inline(value) {
        Some(rendered) => vec![format!("{pad}{key}: {rendered}")],
        None => {
            let mut lines = vec![format!("{pad}{key}:")];
            lines.extend(block_lines(value, indent + 2));
            lines
        }
    }
}

fn block_lines(value: &Value, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    emit(value)
        .into_iter()
        .map(|l| format!("{pad}{l}"))
        .collect()
}

/// YAML's own writer, in block style: JSON is YAML, so the value is read as YAML and
/// written again.
fn emit(value: &Value) -> Vec<String> {
    let json = value.to_string();
    let docs = Yaml::load_from_str(&json).expect("JSON is YAML");
    emit_yaml(&docs[0])
}

fn emit_yaml(yaml: &Yaml<'_>) -> Vec<String> {
    let mut out = String::new();
    YamlEmitter::new(&mut out)
        .dump(yaml)
        .expect("writing to a string");
    let body = out.strip_prefix("---").unwrap_or(&out);
    let body = body.strip_prefix('\n').unwrap_or(body.trim_start());
    body.lines().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests;
