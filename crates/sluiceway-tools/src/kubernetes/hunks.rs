//! The strict reader of `kubectl diff` output made with `diff -N -U1000000`.
//!
//! With a context that large, each object kubectl wrote is exactly one hunk holding the
//! whole object on both sides. The reader counts lines and never looks at what a line
//! says, so nothing it reports can carry a value: a problem names a line number and what
//! was expected there.

/// The two sides of one object; an empty side means the object is absent there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectPair {
    pub live: String,
    pub merged: String,
}

/// Where the output stopped making sense, by line (1-based), and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkError {
    pub line: usize,
    pub expected: &'static str,
}

impl std::fmt::Display for HunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "The tool's output, at line {}: expected {}.",
            self.line, self.expected
        )
    }
}

struct HunkHeader {
    live_start: usize,
    live_count: usize,
    merged_start: usize,
    merged_count: usize,
}

/// `@@ -a[,b] +c[,d] @@` (a missing count means 1).
fn hunk_header(line: &str) -> Option<HunkHeader> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (live, merged) = ranges.split_once(" +")?;
    let range = |text: &str| -> Option<(usize, usize)> {
        match text.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
    };
    let (live_start, live_count) = range(live)?;
    let (merged_start, merged_count) = range(merged)?;
    Some(HunkHeader {
        live_start,
        live_count,
        merged_start,
        merged_count,
    })
}

/// A hunk that starts at the object's first line (or is empty on that side).
fn holds_whole_object(start: usize, count: usize) -> bool {
    if count == 0 { start == 0 } else { start == 1 }
}

pub fn read(output: &str) -> Result<Vec<ObjectPair>, HunkError> {
    let lines: Vec<&str> = output.split('\n').collect();
    // A final newline leaves one empty piece that is not a line.
    let end = if output.is_empty() {
        0
    } else if output.ends_with('\n') {
        lines.len() - 1
    } else {
        lines.len()
    };
    let mut pairs = Vec::new();
    let mut i = 0;
    let error = |i: usize, expected| {
        Err(HunkError {
            line: i + 1,
            expected,
        })
    };
    while i < end {
        if lines[i].starts_with("diff ") {
            i += 1;
            continue;
        }
        if !lines[i].starts_with("--- ") {
            return error(i, "a file header (a line starting `--- `)");
        }
        i += 1;
        if i >= end || !lines[i].starts_with("+++ ") {
            return error(i, "the second file header (a line starting `+++ `)");
        }
        i += 1;
        let Some(header) = (i < end).then(|| hunk_header(lines[i])).flatten() else {
            return error(i, "a hunk header (`@@ -a,b +c,d @@`)");
        };
        if !holds_whole_object(header.live_start, header.live_count)
            || !holds_whole_object(header.merged_start, header.merged_count)
        {
            return error(i, "a hunk that holds the whole object from its first line");
        }
        i += 1;
        let (mut live_left, mut merged_left) = (header.live_count, header.merged_count);
        let (mut live, mut merged) = (String::new(), String::new());
        while live_left > 0 || merged_left > 0 {
            if i >= end {
                return error(i, "the rest of the object (the output ends inside a hunk)");
            }
            let line = lines[i];
            // The first character says which side a line is on; it may be any character.
            let first = line.chars().next().map_or(0, char::len_utf8);
            let (marker, text) = line.split_at(first);
            match marker {
                " " if live_left > 0 && merged_left > 0 => {
                    live_left -= 1;
                    merged_left -= 1;
                    push_line(&mut live, text);
                    push_line(&mut merged, text);
                }
                "-" if live_left > 0 => {
                    live_left -= 1;
                    push_line(&mut live, text);
                }
                "+" if merged_left > 0 => {
                    merged_left -= 1;
                    push_line(&mut merged, text);
                }
                "\\" => {}
                _ => {
                    return error(
                        i,
                        "a line of the hunk (starting with a space, `-` or `+`) within its counts",
                    );
                }
            }
            i += 1;
        }
        while i < end && lines[i].starts_with('\\') {
            i += 1;
        }
        if i < end && lines[i].starts_with("@@") {
            return error(i, "one hunk per object");
        }
        pairs.push(ObjectPair { live, merged });
    }
    Ok(pairs)
}

fn push_line(side: &mut String, text: &str) {
    side.push_str(text);
    side.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    const UPDATE: &str = "diff -N -U1000000 /tmp/LIVE-1/v1.ConfigMap.ns.a /tmp/MERGED-2/v1.ConfigMap.ns.a\n--- /tmp/LIVE-1/v1.ConfigMap.ns.a\t2026\n+++ /tmp/MERGED-2/v1.ConfigMap.ns.a\t2026\n@@ -1,3 +1,3 @@\n apiVersion: v1\n-data: 1\n+data: 2\n kind: ConfigMap\n";

    #[test]
    fn one_pair_per_object() {
        let pairs = read(UPDATE).unwrap();
        assert_eq!(
            pairs,
            [ObjectPair {
                live: "apiVersion: v1\ndata: 1\nkind: ConfigMap\n".into(),
                merged: "apiVersion: v1\ndata: 2\nkind: ConfigMap\n".into()
            }]
        );
        let create = "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+kind: X\n+x: 1\n";
        assert_eq!(read(create).unwrap()[0].live, "");
        assert!(read("").unwrap().is_empty());
    }

    #[test]
    fn a_second_hunk_a_partial_hunk_and_a_cut_are_refused() {
        let second = format!("{UPDATE}@@ -5,1 +5,1 @@\n-x\n+y\n");
        assert_eq!(
            read(&second).unwrap_err(),
            HunkError {
                line: 9,
                expected: "one hunk per object"
            }
        );
        let partial = UPDATE.replace("@@ -1,3 +1,3 @@", "@@ -4,3 +4,3 @@");
        assert_eq!(read(&partial).unwrap_err().line, 4);
        let cut = &UPDATE[..UPDATE.len() - 17];
        assert_eq!(
            read(cut).unwrap_err().expected,
            "the rest of the object (the output ends inside a hunk)"
        );
        assert_eq!(read("garbage\n").unwrap_err().line, 1);
    }

    #[test]
    fn a_line_may_start_with_any_character() {
        let error = read("--- a\n+++ b\n@@ -1,1 +1,1 @@\n\u{61b}x\n").unwrap_err();
        assert_eq!(error.line, 4);
    }

    #[test]
    fn messages_name_a_line_never_content() {
        let error = read("--- a\n+++ b\n@@ -1,1 +1,1 @@\n?CANARY-VALUE\n").unwrap_err();
        assert!(!error.to_string().contains("CANARY"));
        assert_eq!(error.line, 4);
    }
}
