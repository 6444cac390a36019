//! The kubectl version check: once per job, only when a kubectl stack is at hand.

use serde_json::Value;

use crate::version::Version;

/// The oldest kubectl Sluiceway drives: the oldest our recordings prove.
pub const FLOOR: Version = Version {
    major: 1,
    minor: 34,
    patch: 0,
};

/// Reads `kubectl version --client --output=json`.
pub fn client_version(stdout: &str) -> Option<Version> {
    let value: Value = serde_json::from_str(stdout).ok()?;
    Version::parse(value.pointer("/clientVersion/gitVersion")?.as_str()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_the_oldest_recorded_minor() {
        assert!(Version::parse("v1.33.9").unwrap() < FLOOR);
        assert!(Version::parse("v1.34.0").unwrap() >= FLOOR);
    }
}
