//! The `env-file` input's file: `NAME=value` lines that the tool gets on top of the job's
//! environment (decision 0014's promise: a path, never a value, in the workflow). Blank
//! lines and lines starting with `#` are skipped; the value is everything after the first
//! `=`, taken as it is (no quotes are removed, no variables expanded). A line that is not
//! one of these is an error naming the file and the line, never the value.

use std::fmt;

/// One variable of the file.
#[derive(Clone, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    pub value: String,
}

/// The values are secrets: they are never formatted.
impl fmt::Debug for Variable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variable")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {why}")]
pub struct EnvFileError {
    pub file: String,
    pub line: usize,
    pub why: &'static str,
}

/// Values shorter than this are not masked: GitHub masks every occurrence of a masked
/// value, and a short one would blot out common words of the log.
pub const SHORTEST_MASKED: usize = 4;

pub fn parse(file: &str, text: &str) -> Result<Vec<Variable>, EnvFileError> {
    let mut variables: Vec<Variable> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let error = |why| EnvFileError {
            file: file.to_owned(),
            line: i + 1,
            why,
        };
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            return Err(error("expected NAME=value"));
        };
        let name = name.trim();
        let mut chars = name.chars();
        let well_named = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !well_named {
            return Err(error(
                "a name is letters, digits and `_`, and does not start with a digit",
            ));
        }
        if name.starts_with("INPUT_") {
            return Err(error(
                "`INPUT_` variables are the action's inputs and never reach the tool",
            ));
        }
        if variables.iter().any(|v| v.name == name) {
            return Err(error("this name is set twice"));
        }
        variables.push(Variable {
            name: name.to_owned(),
            value: value.to_owned(),
        });
    }
    Ok(variables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_with_comments_and_blank_lines_skipped() {
        let vars = parse(
            "e.env",
            "# a comment\n\nAWS_REGION=eu-west-1\nTOKEN=a=b=c\nEMPTY=\n",
        )
        .unwrap();
        let pairs: Vec<(&str, &str)> = vars
            .iter()
            .map(|v| (v.name.as_str(), v.value.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("AWS_REGION", "eu-west-1"),
                ("TOKEN", "a=b=c"),
                ("EMPTY", "")
            ]
        );
    }

    #[test]
    fn a_bad_line_is_named_by_file_and_line_and_no_value_is_shown() {
        let cases = [
            ("A=1\nnot a variable\n", 2, "expected NAME=value"),
            ("1A=secret-value\n", 1, "a name is letters"),
            ("INPUT_GITHUB-TOKEN=x\n", 1, "a name is letters"),
            ("INPUT_MODE=scan\n", 1, "`INPUT_` variables"),
            ("A=1\nA=2\n", 2, "this name is set twice"),
        ];
        for (text, line, why) in cases {
            let error = parse("ci.env", text).unwrap_err();
            assert_eq!(error.line, line, "{text}");
            assert!(error.why.starts_with(why), "{text}: {}", error.why);
            assert!(error.to_string().starts_with(&format!("ci.env:{line}: ")));
            assert!(!error.to_string().contains("secret-value"));
        }
        let debug = format!("{:?}", parse("e", "K=secret-value").unwrap());
        assert!(!debug.contains("secret-value"));
    }
}
