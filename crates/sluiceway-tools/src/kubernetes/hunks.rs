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

/// Every object pair of the output, read at once.
pub fn read(output: &str) -> Result<Vec<ObjectPair>, HunkError> {
    Hunks::new(output)
        .map(|hunk| hunk.map(|h| h.pair()))
        .collect()
}

/// One object's hunk, its lines checked against its header: where it lies in the
/// output, so whoever folds it can read its sides there.
#[derive(Debug, Clone, Copy)]
pub struct Hunk<'a> {
    /// The hunk's lines after its header, each starting with a space, `-`, `+` or `\`.
    body: &'a str,
    /// How many lines each side has, as the header counts them.
    live_count: usize,
    merged_count: usize,
}

/// One side of an object pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Live,
    Merged,
}

impl<'a> Hunk<'a> {
    /// One side's lines, without their markers or line breaks: the lines both sides
    /// share, and the side's own.
    pub fn lines(&self, side: Side) -> SideLines<'a> {
        let (own, left) = match side {
            Side::Live => (b'-', self.live_count),
            Side::Merged => (b'+', self.merged_count),
        };
        SideLines {
            lines: self.body.split_inclusive('\n'),
            own,
            left,
        }
    }

    /// One side's text, copied out of the output.
    pub fn text(&self, side: Side) -> String {
        let mut text = String::with_capacity(self.body.len());
        for line in self.lines(side) {
            push_line(&mut text, line);
        }
        text
    }

    /// The object's two sides, copied out of the output.
    pub fn pair(&self) -> ObjectPair {
        ObjectPair {
            live: self.text(Side::Live),
            merged: self.text(Side::Merged),
        }
    }
}

/// One side's lines of a hunk; how many there are is known before they are read.
pub struct SideLines<'a> {
    lines: std::str::SplitInclusive<'a, char>,
    /// The marker of the side's own lines.
    own: u8,
    left: usize,
}

impl<'a> Iterator for SideLines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.left == 0 {
            return None;
        }
        for line in self.lines.by_ref() {
            let text = line.strip_suffix('\n').unwrap_or(line);
            let marker = text.as_bytes()[0];
            if marker == b' ' || marker == self.own {
                self.left -= 1;
                return Some(&text[1..]);
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for SideLines<'_> {}

/// The hunks of the output, one at a time, each checked before it is handed out: a
/// diff of thousands of objects is folded while it is read, each hunk's sides read
/// where they lie in it.
pub struct Hunks<'a> {
    output: &'a str,
    lines: std::iter::Peekable<std::str::SplitInclusive<'a, char>>,
    /// The number of lines taken so far; the next line's number is one more.
    taken: usize,
    /// Where the next line starts in the output.
    offset: usize,
    failed: bool,
}

impl<'a> Hunks<'a> {
    pub fn new(output: &'a str) -> Hunks<'a> {
        Hunks {
            output,
            lines: output.split_inclusive('\n').peekable(),
            taken: 0,
            offset: 0,
            failed: false,
        }
    }

    fn peek(&mut self) -> Option<&'a str> {
        self.lines
            .peek()
            .map(|line| line.strip_suffix('\n').unwrap_or(line))
    }

    fn take(&mut self) -> Option<&'a str> {
        let line = self.lines.next()?;
        self.taken += 1;
        self.offset += line.len();
        Some(line.strip_suffix('\n').unwrap_or(line))
    }

    /// The error at the next line.
    fn expected(&mut self, expected: &'static str) -> HunkError {
        self.failed = true;
        HunkError {
            line: self.taken + 1,
            expected,
        }
    }

    fn hunk(&mut self) -> Option<Result<Hunk<'a>, HunkError>> {
        while self.peek()?.starts_with("diff ") {
            self.take();
        }
        if !self.peek()?.starts_with("--- ") {
            return Some(Err(self.expected("a file header (a line starting `--- `)")));
        }
        self.take();
        if !self.peek().is_some_and(|l| l.starts_with("+++ ")) {
            return Some(Err(
                self.expected("the second file header (a line starting `+++ `)")
            ));
        }
        self.take();
        let Some(header) = self.peek().and_then(hunk_header) else {
            return Some(Err(self.expected("a hunk header (`@@ -a,b +c,d @@`)")));
        };
        if !holds_whole_object(header.live_start, header.live_count)
            || !holds_whole_object(header.merged_start, header.merged_count)
        {
            return Some(Err(
                self.expected("a hunk that holds the whole object from its first line")
            ));
        }
        self.take();
        let (mut live_left, mut merged_left) = (header.live_count, header.merged_count);
        let start = self.offset;
        while live_left > 0 || merged_left > 0 {
            let Some(line) = self.peek() else {
                return Some(Err(
                    self.expected("the rest of the object (the output ends inside a hunk)")
                ));
            };
            // The first character says which side a line is on; it may be any character.
            let first = line.chars().next().map_or(0, char::len_utf8);
            let marker = &line[..first];
            match marker {
                " " if live_left > 0 && merged_left > 0 => {
                    live_left -= 1;
                    merged_left -= 1;
                }
                "-" if live_left > 0 => live_left -= 1,
                "+" if merged_left > 0 => merged_left -= 1,
                "\\" => {}
                _ => {
                    return Some(Err(self.expected(
                        "a line of the hunk (starting with a space, `-` or `+`) within its counts",
                    )));
                }
            }
            self.take();
        }
        let body = &self.output[start..self.offset];
        while self.peek().is_some_and(|l| l.starts_with('\\')) {
            self.take();
        }
        if self.peek().is_some_and(|l| l.starts_with("@@")) {
            return Some(Err(self.expected("one hunk per object")));
        }
        Some(Ok(Hunk {
            body,
            live_count: header.live_count,
            merged_count: header.merged_count,
        }))
    }
}

impl<'a> Iterator for Hunks<'a> {
    type Item = Result<Hunk<'a>, HunkError>;

    /// The next hunk; after an error, nothing more.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        self.hunk()
    }
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
    fn a_hunks_sides_are_read_where_they_lie() {
        let output = format!("{UPDATE}\\ No newline at end of file\n");
        let hunk = Hunks::new(&output).next().unwrap().unwrap();
        for (side, text) in [
            (Side::Live, "apiVersion: v1\ndata: 1\nkind: ConfigMap\n"),
            (Side::Merged, "apiVersion: v1\ndata: 2\nkind: ConfigMap\n"),
        ] {
            let lines = hunk.lines(side);
            assert_eq!(lines.len(), 3);
            assert_eq!(lines.collect::<Vec<_>>(), text.lines().collect::<Vec<_>>());
            assert_eq!(hunk.text(side), text);
        }
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
