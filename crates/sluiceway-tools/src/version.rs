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
}
