//! What the interpreter is not handed. Fuzzing found two kinds of text that regorus
//! 0.14 cannot get through in any time a job has: a number literal with a huge exponent
//! (it works through the power: `1e99999999` takes half a minute, `0e48777777777` all
//! the memory), and brackets nested deep (its parser tries each `[` two ways, so 20
//! levels take a second and 30 take twenty minutes). No policy needs a power of ten
//! beyond what a JSON number holds, or brackets nested deeper than a person reads, so
//! such text is refused before the interpreter sees it, with its place.

/// The largest exponent a number literal may have: beyond it no 64-bit float is finite.
pub(crate) const LARGEST_EXPONENT: u32 = 400;

/// The deepest brackets (`[`, `{`, `(` together) may nest.
pub(crate) const DEEPEST_NESTING: usize = 16;

/// What the guard refuses, with its line and column (from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    Exponent { line: usize, column: usize },
    Nesting { line: usize, column: usize },
}

impl Refused {
    pub(crate) fn place(self) -> (usize, usize) {
        match self {
            Refused::Exponent { line, column } | Refused::Nesting { line, column } => {
                (line, column)
            }
        }
    }

    pub(crate) fn message(self) -> String {
        match self {
            Refused::Exponent { .. } => format!(
                "a number's exponent is larger than {LARGEST_EXPONENT}, which no policy needs"
            ),
            Refused::Nesting { .. } => format!(
                "brackets are nested deeper than {DEEPEST_NESTING} levels, which the interpreter cannot read in time"
            ),
        }
    }
}

/// The first place, outside strings and comments, that the interpreter is not handed.
pub(crate) fn refused(text: &str) -> Option<Refused> {
    let bytes = text.as_bytes();
    let (mut line, mut line_start) = (1, 0);
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'[' | b'{' | b'(' => {
                depth += 1;
                if depth > DEEPEST_NESTING {
                    return Some(Refused::Nesting {
                        line,
                        column: i - line_start + 1,
                    });
                }
                i += 1;
            }
            b']' | b'}' | b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'\n' => {
                line += 1;
                line_start = i + 1;
                i += 1;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'`' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'`' {
                    if bytes[i] == b'\n' {
                        line += 1;
                        line_start = i + 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'0'..=b'9' if i == 0 || !is_word(bytes[i - 1]) => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                    i += 1;
                }
                if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                    i += 1;
                    if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
                        i += 1;
                    }
                    let digits = i;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                    let exponent = &text[digits..i];
                    let oversized = exponent
                        .trim_start_matches('0')
                        .parse::<u32>()
                        .map_or(!exponent.trim_start_matches('0').is_empty(), |e| {
                            e > LARGEST_EXPONENT
                        });
                    if oversized {
                        return Some(Refused::Exponent {
                            line,
                            column: start - line_start + 1,
                        });
                    }
                }
            }
            _ => i += 1,
        }
    }
    None
}

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exponent(line: usize, column: usize) -> Option<Refused> {
        Some(Refused::Exponent { line, column })
    }

    #[test]
    fn a_huge_exponent_is_found_outside_strings_and_comments_only() {
        assert_eq!(refused("package a\nx := 0e48777777777\n"), exponent(2, 6));
        assert_eq!(refused("package a\nx := 1.5E+401"), exponent(2, 6));
        assert_eq!(refused("package a\nx := 1e400\ny := 2e-400"), None);
        assert_eq!(refused("package a\n# 1e99999\nx := \"3e4567\""), None);
        assert_eq!(refused("package a\nx := `multi\nline 9e9999`"), None);
        assert_eq!(
            refused("package a\nv2e99999 := 1"),
            None,
            "a name, not a number"
        );
    }

    #[test]
    fn brackets_nested_too_deep_are_found_at_the_one_too_many() {
        let deep = format!("package a\nx := {}1{}", "[".repeat(17), "]".repeat(17));
        assert_eq!(
            refused(&deep),
            Some(Refused::Nesting {
                line: 2,
                column: 22
            })
        );
        let fine = format!(
            "package a\nx := {}1{}\ny := {}2{}",
            "[".repeat(16),
            "]".repeat(16),
            "{".repeat(16),
            "}".repeat(16)
        );
        assert_eq!(refused(&fine), None, "the depth is counted back down");
        assert_eq!(refused(&format!("package a\n# {}", "[".repeat(40))), None);
    }
}
