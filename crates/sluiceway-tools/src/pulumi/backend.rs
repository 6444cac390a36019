//! Reading `pulumi stack ls --json`: which stacks of a project the backend holds
//! (decisions 0074 and 0107). A name may come as `org/project/stack`; only its last
//! segment is compared with a stack file's name.

use serde::Deserialize;
use sluiceway_core::failure::Failure;

use crate::tool_run::unreadable;

#[derive(Deserialize)]
struct Listed {
    name: String,
}

/// The stack names the backend holds for the project, sorted.
pub fn read(stdout: &[u8]) -> Result<Vec<String>, Failure> {
    let listed: Vec<Listed> = serde_json::from_slice(stdout).map_err(|e| {
        unreadable(format!(
            "The backend's stack list: expected a JSON list of stacks (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    let mut names: Vec<String> = listed
        .into_iter()
        .map(|l| l.name.rsplit('/').next().unwrap_or(&l.name).to_owned())
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_by_their_last_segment() {
        let text = br#"[{"name":"acme/network/prod","current":false},{"name":"dev","current":true,"resourceCount":3}]"#;
        assert_eq!(read(text).unwrap(), ["dev", "prod"]);
        assert_eq!(read(b"[]").unwrap(), Vec::<String>::new());
        assert!(read(b"[{\"current\":true}]").is_err());
    }
}
