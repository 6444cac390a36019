//! The provider plugin cache a scan's inits share (ADR 0038).
//!
//! Without a cache every root module's `init` fetches its own copy of each provider, so a
//! repository of forty modules on one provider downloads it forty times. When the
//! workflow names no cache, a scan names one under the runner's temporary folder, so the
//! first init fetches and the others link. Whether two inits may use one cache at the
//! same moment is the tool's promise, not ours: OpenTofu locks it from 1.10 ("The global
//! provider cache is now safe for concurrent use by multiple OpenTofu processes", its
//! changelog); Terraform's documentation says its cache is not safe for concurrent use,
//! and older OpenTofu does not lock it. Such inits run one at a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Binary;
use crate::version::Version;

/// The variable both tools read the cache's folder from.
pub const VAR: &str = "TF_PLUGIN_CACHE_DIR";

/// The first OpenTofu that locks its plugin cache.
const FIRST_LOCKING_TOFU: Version = Version {
    major: 1,
    minor: 10,
    patch: 0,
};

/// Whether `binary` at `version` keeps a shared plugin cache whole when several inits
/// use it at once.
pub fn locked(binary: Binary, version: &Version) -> bool {
    binary == Binary::Tofu && *version >= FIRST_LOCKING_TOFU
}

/// Whether the workflow chose a cache (or may have): the variable is set, even empty, or
/// a CLI configuration file the tool reads mentions `plugin_cache_dir`. A file that
/// cannot be read counts as one that may, so a scan never overrides a setting it could
/// not see.
pub fn chosen_by_workflow(env: &BTreeMap<String, String>) -> bool {
    if env.contains_key(VAR) {
        return true;
    }
    cli_config_files(env)
        .iter()
        .filter(|file| file.exists())
        .any(|file| {
            std::fs::read_to_string(file).map_or(true, |text| text.contains("plugin_cache_dir"))
        })
}

/// The CLI configuration files OpenTofu and Terraform read: the one the variable names,
/// else the ones in the home folder.
fn cli_config_files(env: &BTreeMap<String, String>) -> Vec<PathBuf> {
    if let Some(file) = env.get("TF_CLI_CONFIG_FILE") {
        return vec![PathBuf::from(file)];
    }
    let Some(home) = env.get("HOME").map(Path::new) else {
        return Vec::new();
    };
    vec![home.join(".tofurc"), home.join(".terraformrc")]
}

/// The tool environment with a shared cache in `folder`, made when missing; the
/// environment as it was when the workflow chose a cache, or when the folder cannot be
/// made (each init then fetches its own, as without Sluiceway).
pub fn shared(env: &BTreeMap<String, String>, folder: &Path) -> BTreeMap<String, String> {
    let mut env = env.clone();
    if !chosen_by_workflow(&env) && std::fs::create_dir_all(folder).is_ok() {
        env.insert(VAR.to_owned(), folder.display().to_string());
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn only_opentofu_from_1_10_locks_its_cache() {
        let v = |text| Version::parse(text).unwrap();
        assert!(!locked(Binary::Tofu, &v("1.6.2")));
        assert!(!locked(Binary::Tofu, &v("1.9.4")));
        assert!(locked(Binary::Tofu, &v("1.10.0")));
        assert!(locked(Binary::Tofu, &v("2.0.0")));
        assert!(!locked(Binary::Terraform, &v("1.14.0")));
    }

    #[test]
    fn a_cache_is_named_only_when_the_workflow_chose_none() {
        let home = tempfile::tempdir().unwrap();
        let folder = home.path().join("cache");
        let home_env = env(&[("HOME", home.path().to_str().unwrap())]);
        let named = shared(&home_env, &folder);
        assert_eq!(named.get(VAR).map(String::as_str), folder.to_str());
        assert!(folder.is_dir());

        let own = env(&[(VAR, "/opt/plugins")]);
        assert_eq!(shared(&own, &folder), own, "the workflow's own cache stays");
        let off = env(&[(VAR, "")]);
        assert_eq!(shared(&off, &folder), off, "a cache turned off stays off");

        std::fs::write(
            home.path().join(".terraformrc"),
            "plugin_cache_dir = \"/opt/plugins\"\n",
        )
        .unwrap();
        assert_eq!(
            shared(&home_env, &folder),
            home_env,
            "the home file names one"
        );

        let config = home.path().join("other.tfrc");
        std::fs::write(&config, "disable_checkpoint = true\n").unwrap();
        let with_config = env(&[
            ("HOME", home.path().to_str().unwrap()),
            ("TF_CLI_CONFIG_FILE", config.to_str().unwrap()),
        ]);
        assert!(
            shared(&with_config, &folder).contains_key(VAR),
            "the file the variable names is the one read, and it names no cache"
        );
    }
}
