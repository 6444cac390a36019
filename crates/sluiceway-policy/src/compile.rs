//! Making a set of Rego files one set of rules, and learning what Conftest would ask of
//! each namespace.

use regorus::unstable::{Rule, RuleHead};

use crate::guard;
use crate::sources::Source;

/// A team's policies, compiled once per job and asked about every pending stack.
#[derive(Clone)]
pub struct Policies {
    pub(crate) engine: regorus::Engine,
    pub(crate) namespaces: Vec<Namespace>,
}

/// One package and the rules Conftest queries in it.
#[derive(Debug, Clone)]
pub(crate) struct Namespace {
    /// `main`, `prod.network`: the package path without `data.`.
    pub(crate) name: String,
    /// The failure and warning rules, each name once, in the order they first appear.
    pub(crate) rules: Vec<String>,
    /// How many such rule definitions there are: two `deny` bodies count twice. Conftest
    /// counts a rule that gave no result as a success against this number.
    pub(crate) definitions: usize,
}

/// Why the policies cannot be used. The message names the file, and the line where the
/// interpreter knows it; it never holds a document's value (none has been read yet).
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("{at}: the policy does not parse: {message}")]
    Parse {
        /// `policy/prod.rego:4:11`, or the file alone when the interpreter names no line.
        at: String,
        message: String,
    },
    #[error(
        "{path}:{line}: `{rule}` is written with `if` and without `contains`, so it is true or false and has no message; write `{rule} contains msg if`"
    )]
    IfWithoutContains {
        path: String,
        line: u32,
        rule: String,
    },
    #[error("the policies do not compile: {message}")]
    Compile { message: String },
}

impl Policies {
    /// Compiles the files as one set of rules, in Rego v1 (Conftest's default).
    pub fn compile(sources: &[Source]) -> Result<Policies, CompileError> {
        let mut engine = regorus::Engine::new();
        engine.set_rego_v0(false);
        engine.set_strict_builtin_errors(false);
        engine.set_gather_prints(true);
        for source in sources {
            if let Some(refused) = guard::refused(&source.text) {
                let (line, column) = refused.place();
                return Err(CompileError::Parse {
                    at: format!("{}:{line}:{column}", source.path),
                    message: refused.message(),
                });
            }
            engine
                .add_policy(source.path.clone(), source.text.clone())
                .map_err(|e| parse_error(&source.path, &e.to_string()))?;
        }
        let mut namespaces: Vec<Namespace> = Vec::new();
        for module in engine.get_modules().clone().iter() {
            let package =
                regorus::utils::get_path_string(&module.package.refr, None).map_err(|e| {
                    CompileError::Compile {
                        message: first_line(&e.to_string()),
                    }
                })?;
            let at = match namespaces.iter().position(|n| n.name == package) {
                Some(at) => at,
                None => {
                    namespaces.push(Namespace {
                        name: package,
                        rules: Vec::new(),
                        definitions: 0,
                    });
                    namespaces.len() - 1
                }
            };
            for rule in &module.policy {
                let Some((name, true_without_contains, line)) = head(rule) else {
                    continue;
                };
                if !is_failure(&name) && !is_warning(&name) {
                    continue;
                }
                if true_without_contains {
                    return Err(CompileError::IfWithoutContains {
                        path: module.package.span.source.get_path().to_string(),
                        line,
                        rule: name,
                    });
                }
                let namespace = &mut namespaces[at];
                namespace.definitions += 1;
                if !namespace
                    .rules
                    .iter()
                    .any(|known| known.eq_ignore_ascii_case(&name))
                {
                    namespace.rules.push(name);
                }
            }
        }
        // Compile now, so a rule that cannot be evaluated is found before any stack
        // asks, and each evaluation starts from a prepared interpreter.
        engine
            .eval_query("true".to_owned(), false)
            .map_err(|e| CompileError::Compile {
                message: first_line(&e.to_string()),
            })?;
        Ok(Policies { engine, namespaces })
    }

    /// Every namespace, in the order its first file was read.
    pub fn namespaces(&self) -> impl Iterator<Item = &str> {
        self.namespaces.iter().map(|n| n.name.as_str())
    }
}

/// A rule's name, whether it is `name if { … }` (true, with no message), and its line.
fn head(rule: &Rule) -> Option<(String, bool, u32)> {
    let (refr, true_without_contains) = match rule {
        Rule::Spec { head, .. } => match head {
            RuleHead::Set { refr, .. } => (refr, false),
            RuleHead::Compr { refr, assign, .. } => (refr, assign.is_none()),
            RuleHead::Func { .. } => return None,
        },
        Rule::Default { refr, .. } => (refr, false),
    };
    let name = regorus::utils::get_path_string(refr, None).ok()?;
    Some((name, true_without_contains, rule.span().line))
}

/// `deny`, `violation`, `deny_public_bucket`: rules whose results fail.
pub(crate) fn is_failure(rule: &str) -> bool {
    ["deny", "violation"]
        .iter()
        .any(|prefix| rule.strip_prefix(prefix).is_some_and(suffixes))
}

/// `warn`, `warn_old_image`: rules whose results warn.
pub(crate) fn is_warning(rule: &str) -> bool {
    rule.strip_prefix("warn").is_some_and(suffixes)
}

/// Conftest's `(_[a-zA-Z0-9]+)*`: nothing, or words of ASCII letters and digits each
/// after one `_`.
fn suffixes(rest: &str) -> bool {
    rest.is_empty()
        || rest.strip_prefix('_').is_some_and(|words| {
            words
                .split('_')
                .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric()))
        })
}

/// The interpreter's report (`--> file:line:col`, the line drawn, `error: …`) as one line.
fn parse_error(path: &str, report: &str) -> CompileError {
    let at = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("--> "))
        .unwrap_or(path);
    let message = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .map_or_else(|| first_line(report), str::to_owned);
    CompileError::Parse {
        at: at.to_owned(),
        message,
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_are_conftests() {
        for failing in ["deny", "violation", "deny_x", "violation_a1_b2"] {
            assert!(is_failure(failing), "{failing}");
        }
        for warning in ["warn", "warn_old_image2"] {
            assert!(is_warning(warning), "{warning}");
        }
        for neither in [
            "denied", "deny_", "deny__x", "deny_x-y", "warning", "allow", "Deny",
        ] {
            assert!(!is_failure(neither) && !is_warning(neither), "{neither}");
        }
    }
}
