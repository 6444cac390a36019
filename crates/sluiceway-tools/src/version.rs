//! A tool's version as `major.minor.patch`, the one type every adapter's version check
//! and floor use.

use std::fmt;

/// A version as `major.minor.patch`; vendor suffixes (`v1.35.2-eks-1234567`) count as
/// their numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    pub fn parse(text: &str) -> Option<Version> {
        let core = text.strip_prefix('v').unwrap_or(text);
        let core = core.split(['-', '+']).next()?;
        let mut numbers = core.split('.').map(|n| n.parse::<u32>().ok());
        let version = Version {
            major: numbers.next()??,
            minor: numbers.next()??,
            patch: numbers.next()??,
        };
        numbers.next().is_none().then_some(version)
    }
}

impl Version {
    /// Whether this version meets a Terraform-style version constraint (`~> 1.7`,
    /// `>= 1.6, < 2.0`, `1.6.2`): every comma-separated part must hold, a missing
    /// number counts as zero, and `~>` lets only the last number written grow. `None`
    /// when the constraint cannot be read (a pre-release bound such as `1.8.0-beta1`
    /// among them), so the tool itself judges it.
    pub fn meets(self, constraint: &str) -> Option<bool> {
        let mut all = true;
        for part in constraint.split(',') {
            let part = part.trim();
            let (operator, number) = ["~>", ">=", "<=", "!=", ">", "<", "="]
                .iter()
                .find_map(|op| part.strip_prefix(op).map(|rest| (*op, rest.trim())))
                .unwrap_or(("=", part));
            let written: Vec<u32> = number
                .strip_prefix('v')
                .unwrap_or(number)
                .split('.')
                .map(|n| n.parse::<u32>().ok())
                .collect::<Option<_>>()?;
            if written.is_empty() || written.len() > 3 {
                return None;
            }
            let at = |i: usize| written.get(i).copied().unwrap_or(0);
            let bound = Version {
                major: at(0),
                minor: at(1),
                patch: at(2),
            };
            all &= match operator {
                "=" => self == bound,
                "!=" => self != bound,
                ">" => self > bound,
                ">=" => self >= bound,
                "<" => self < bound,
                "<=" => self <= bound,
                _ => {
                    // `~> 1.7` is `>= 1.7.0, < 2.0.0`; `~> 1.7.3` is `>= 1.7.3, < 1.8.0`;
                    // `~> 1` is `>= 1.0.0, < 2.0.0`.
                    let upper = match written.len() {
                        1 | 2 => Version {
                            major: bound.major + 1,
                            minor: 0,
                            patch: 0,
                        },
                        _ => Version {
                            major: bound.major,
                            minor: bound.minor + 1,
                            patch: 0,
                        },
                    };
                    self >= bound && self < upper
                }
            };
        }
        Some(all)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_builds_count_as_their_numbers() {
        assert_eq!(
            Version::parse("v1.35.2-eks-1234567"),
            Some(Version {
                major: 1,
                minor: 35,
                patch: 2
            })
        );
        assert!(Version::parse("v1.33.9") < Version::parse("v1.34.0"));
        assert_eq!(Version::parse("1.2"), None);
        assert_eq!(Version::parse("v1.2.3.4"), None);
    }

    /// Terraform's constraint language as its documentation gives it, on the version the
    /// pinned OpenTofu reports.
    #[test]
    fn a_version_meets_a_constraint_as_terraform_reads_one() {
        let tofu = Version::parse("1.6.2").unwrap();
        for (constraint, meets) in [
            ("~> 1.7", false),
            ("~> 1.6", true),
            ("~> 1.6.0", true),
            ("~> 1.6.3", false),
            ("~> 1", true),
            (">= 1.6, < 2.0", true),
            (">= 1.6.3", false),
            ("1.6.2", true),
            ("= 1.6", false),
            ("!= 1.6.2", false),
            ("> 1.5.9,<=1.6.2", true),
            ("< 1.6", false),
        ] {
            assert_eq!(tofu.meets(constraint), Some(meets), "{constraint}");
        }
        assert_eq!(tofu.meets("~> 1.8.0-beta1"), None);
        assert_eq!(tofu.meets(">= one"), None);
        assert_eq!(tofu.meets(""), None);
    }
}
