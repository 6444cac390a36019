//! `scan --local` as a person runs it in a terminal (issue 25): the real binary and the
//! real `tofu`, outside GitHub Actions. It speaks in words, never in workflow commands;
//! it says each preview as it ends; it links nothing that does not exist (a folder that
//! is not a checkout is said to be one, a checkout with a GitHub remote links that
//! repository's commit, and no run); a row's preview link is its section of the
//! summary beside the dashboard; and it says where each file is. Its inits share a
//! provider plugin cache when nothing names one (ADR 0038).

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::{copy_dir, tofu_dir, workspace};

fn local_scan(repo: &Path, out: &Path, path: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(["scan", "--local", "--repo"])
        .arg(repo)
        .arg("--out")
        .arg(out)
        .env_clear()
        .env("PATH", path)
        .env("HOME", out)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn git(repo: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "alice")
        .env("GIT_AUTHOR_EMAIL", "alice@example.invalid")
        .env("GIT_COMMITTER_NAME", "alice")
        .env("GIT_COMMITTER_EMAIL", "alice@example.invalid")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

#[test]
fn a_folder_that_is_not_a_checkout_is_scanned_in_words_and_links_nothing_outside() {
    let repo = tempfile::tempdir().unwrap();
    copy_dir(&workspace().join("examples/quickstart"), repo.path());
    let out = tempfile::tempdir().unwrap();
    let tools = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let ran = local_scan(repo.path(), out.path(), &tools);
    let said = text(&ran.stderr);
    assert!(ran.status.success(), "{said}");
    assert!(
        !said.lines().any(|l| l.starts_with("::")),
        "no workflow command outside Actions: {said}"
    );
    assert!(
        said.contains("── [network]"),
        "a group is a heading: {said}"
    );
    for stack in ["network", "storage:dev", "storage:prod"] {
        assert!(
            said.lines()
                .any(|l| l.starts_with("[")
                    && l.contains(&format!("/3] previewed {stack}: 2 changes"))),
            "each preview as it ends: {said}"
        );
    }
    let out_dir = std::path::absolute(out.path()).unwrap();
    for (what, file) in [
        ("The dashboard's body", "dashboard.md"),
        ("The job summary", "summary.md"),
        ("The result file", "sluiceway-scan-result.json"),
    ] {
        assert!(
            said.contains(&format!("{what}: {}", out_dir.join(file).display())),
            "{said}"
        );
    }
    assert_eq!(
        text(&ran.stdout).trim(),
        out_dir.join("dashboard.html").display().to_string(),
        "the page's path, last, on stdout"
    );
    let body = std::fs::read_to_string(out.path().join("dashboard.md")).unwrap();
    assert!(
        body.contains("Scanned this folder, which is not a git checkout, on "),
        "{body}"
    );
    for nowhere in ["0000000", "github.com/local", "/actions/runs/", "/commit/"] {
        assert!(!body.contains(nowhere), "{nowhere} in {body}");
    }
    assert!(
        body.contains("[preview](summary.md#"),
        "a row's preview is its section of the summary: {body}"
    );
    let summary = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
    assert!(
        summary.starts_with("## Sluiceway scan of this folder, which is not a git checkout\n"),
        "{summary}"
    );

    // Without the tool, the person is told where it must be.
    let missing = local_scan(repo.path(), out.path(), "/usr/bin:/bin");
    let said = text(&missing.stderr);
    assert!(
        said.contains("error: tofu could not be run; Sluiceway needs tofu v1.6.2 or newer on PATH"),
        "{said}"
    );
    assert!(!said.contains("::error::"), "{said}");
}

#[test]
fn a_checkout_with_a_github_remote_links_that_repositorys_commit_and_no_run() {
    let repo = tempfile::tempdir().unwrap();
    copy_dir(&workspace().join("examples/quickstart"), repo.path());
    git(repo.path(), &["init", "--quiet"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "--quiet", "-m", "the stacks"]);
    git(
        repo.path(),
        &["remote", "add", "origin", "git@github.com:octo/infra.git"],
    );
    let out = tempfile::tempdir().unwrap();
    let ran = local_scan(
        repo.path(),
        out.path(),
        &format!("{}:/usr/bin:/bin", tofu_dir().display()),
    );
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    let head = Command::new("git")
        .arg("-C")
        .arg(repo.path())
        .args(["rev-parse", "HEAD"])
        .output()
        .unwrap();
    let head = text(&head.stdout).trim().to_owned();
    let body = std::fs::read_to_string(out.path().join("dashboard.md")).unwrap();
    assert!(
        body.contains(&format!(
            "Scanned [`{}`](https://github.com/octo/infra/commit/{head}) on ",
            &head[..7]
        )),
        "{body}"
    );
    assert!(!body.contains("/actions/runs/"), "no run exists: {body}");
}

/// A `tofu` in front of the real one that notes the plugin cache each call was given.
fn noting_tofu(bin: &Path, notes: &Path) {
    let script = format!(
        "#!/bin/sh\nprintf '%s %s\\n' \"$1\" \"${{TF_PLUGIN_CACHE_DIR-unset}}\" >> '{}'\nexec '{}' \"$@\"\n",
        notes.display(),
        tofu_dir().join("tofu").display()
    );
    let tofu = bin.join("tofu");
    std::fs::write(&tofu, script).unwrap();
    let mut permissions = std::fs::metadata(&tofu).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&tofu, permissions).unwrap();
}

/// The plugin cache each `tofu init` of a scan was given, and what the scan said.
fn inits_caches(extra: &[(&str, &str)]) -> (Vec<String>, String, tempfile::TempDir) {
    let repo = tempfile::tempdir().unwrap();
    copy_dir(&workspace().join("examples/quickstart"), repo.path());
    let (out, bin, temp) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let notes = bin.path().join("notes");
    noting_tofu(bin.path(), &notes);
    let ran = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(["scan", "--local", "--repo"])
        .arg(repo.path())
        .arg("--out")
        .arg(out.path())
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.path().display()))
        .env("HOME", out.path())
        .env("TMPDIR", temp.path())
        .envs(extra.iter().copied())
        .output()
        .unwrap();
    let said = text(&ran.stderr);
    assert!(ran.status.success(), "{said}");
    let caches = std::fs::read_to_string(&notes)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("init "))
        .map(str::to_owned)
        .collect();
    (caches, said, temp)
}

#[test]
fn the_inits_share_a_plugin_cache_only_when_the_workflow_names_none() {
    let (caches, said, temp) = inits_caches(&[]);
    let shared = temp.path().join("sluiceway-plugin-cache");
    assert_eq!(
        caches,
        vec![shared.display().to_string(); 2],
        "both root modules' inits were given the shared cache"
    );
    assert!(shared.is_dir(), "the cache's folder was made");
    assert!(
        said.contains(&format!(
            "The workflow names no provider plugin cache; the inits share one in {}.",
            shared.display()
        )),
        "{said}"
    );

    // A cache of the workflow's own, even an empty setting, is left as it is.
    let own = tempfile::tempdir().unwrap();
    let own = own.path().display().to_string();
    for chosen in [own.as_str(), ""] {
        let (caches, said, temp) = inits_caches(&[("TF_PLUGIN_CACHE_DIR", chosen)]);
        assert_eq!(caches, vec![chosen.to_owned(); 2]);
        assert!(!said.contains("provider plugin cache"), "{said}");
        assert!(!temp.path().join("sluiceway-plugin-cache").exists());
    }

    // So is one named in the CLI configuration file.
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(config.path(), format!("plugin_cache_dir = \"{own}\"\n")).unwrap();
    let (caches, said, _) =
        inits_caches(&[("TF_CLI_CONFIG_FILE", config.path().to_str().unwrap())]);
    assert_eq!(caches, vec!["unset".to_owned(); 2]);
    assert!(!said.contains("provider plugin cache"), "{said}");
}

/// Issue 44, on a layout like the Argo CD homelab: its OpenTofu module says
/// `required_version = "~> 1.7"` and the runner's tofu is 1.6.2. A local scan of a
/// checkout with no GitHub remote fails the stack with a reason that names both, before
/// any init; the row links no run (there is none) and nothing on github.com (no
/// repository is named); and the Pending section does not claim the stack matches its
/// code, since nothing is known of it.
#[test]
fn a_required_version_the_tofu_does_not_meet_fails_its_row_by_name_and_links_nothing() {
    let repo = tempfile::tempdir().unwrap();
    support::homelab::argo(repo.path());
    // As `init` proposes it.
    std::fs::write(
        repo.path().join("sluiceway.yaml"),
        "stacks:\n  - path: external\n    tool: opentofu\n",
    )
    .unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "homelab"]);
    let out = tempfile::tempdir().unwrap();
    let tools = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let ran = local_scan(repo.path(), out.path(), &tools);
    let said = text(&ran.stderr);
    assert!(
        ran.status.success(),
        "a failed preview is a row, not a failed scan: {said}"
    );
    assert!(
        !said.contains("tofu init"),
        "no init runs for a module the tool would refuse: {said}"
    );
    let body = std::fs::read_to_string(out.path().join("dashboard.md")).unwrap();
    let row = body
        .lines()
        .find(|l| l.starts_with("- **external**"))
        .unwrap_or_else(|| panic!("{body}"));
    assert!(
        // Escaped as every row's words are; GitHub shows `~> 1.7` and `required_version`.
        row.contains(
            "preview failed: the module requires tofu &#126;&gt; 1.7 (its required&#95;version) and the runner has v1.6.2"
        ),
        "{row}"
    );
    // The footer names Sluiceway's own repository; nothing names one of the user's.
    assert!(
        !body.contains("github.com//")
            && !body.contains("/actions/runs/")
            && !body.contains("/commit/"),
        "no link to a repository nobody named: {body}"
    );
    assert!(
        !body.contains("[run]("),
        "no link to a run that does not exist: {body}"
    );
    assert!(
        !body.contains("run's log"),
        "no run, so no run's log: {body}"
    );
    assert!(
        !body.contains("every stack matches its code")
            && !body.contains("No stack has changes waiting"),
        "{body}"
    );
    assert!(
        body.contains("Nothing is known to be waiting: the stack could not be previewed"),
        "{body}"
    );
    let summary = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
    assert!(
        summary.contains("external/versions.tf line 2 sets required_version")
            || said.contains("external/versions.tf line 2 sets required_version"),
        "the detail names the file and line: {said}"
    );
}

/// A `tofu` in front of the real one that notes when each call starts and ends, in
/// nanoseconds, and whose `version` takes a third of a second longer than the real one,
/// so whatever runs beside it shows.
fn timing_tofu(bin: &Path, notes: &Path) {
    let script = format!(
        "#!/bin/sh\nnotes='{notes}'\necho \"start $1 $(date +%s%N)\" >> \"$notes\"\n\
         [ \"$1\" = version ] && sleep 0.3\n'{real}' \"$@\"\nrc=$?\n\
         echo \"end $1 $(date +%s%N)\" >> \"$notes\"\nexit $rc\n",
        notes = notes.display(),
        real = tofu_dir().join("tofu").display()
    );
    let tofu = bin.join("tofu");
    std::fs::write(&tofu, script).unwrap();
    let mut permissions = std::fs::metadata(&tofu).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&tofu, permissions).unwrap();
}

/// ADR 0044: the version check runs beside the init of a root module that sets no
/// `required_version` (it needs nothing the check finds), and the init of one that sets
/// one waits for the check, which decides whether that stack is previewed at all.
#[test]
fn the_version_check_runs_beside_an_init_that_needs_nothing_it_finds() {
    let repo = tempfile::tempdir().unwrap();
    copy_dir(&workspace().join("examples/quickstart"), repo.path());
    std::fs::write(
        repo.path().join("storage/versions.tf"),
        "terraform {\n  required_version = \">= 1.6.0\"\n}\n",
    )
    .unwrap();
    let (out, bin) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let notes = bin.path().join("notes");
    timing_tofu(bin.path(), &notes);
    let ran = local_scan(
        repo.path(),
        out.path(),
        &format!("{}:/usr/bin:/bin", bin.path().display()),
    );
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    let notes = std::fs::read_to_string(&notes).unwrap();
    // Each call as (start, end), in the order the calls started.
    let mut calls: Vec<(String, u128, u128)> = Vec::new();
    let mut open: Vec<(String, u128)> = Vec::new();
    for line in notes.lines() {
        let [edge, command, at] = line.split(' ').collect::<Vec<_>>()[..] else {
            panic!("{notes}");
        };
        let at: u128 = at.parse().unwrap();
        if edge == "start" {
            open.push((command.to_owned(), at));
        } else {
            // Calls of one command end in no fixed order; any open one of it will do for
            // the commands compared here, which run once each before the previews.
            let i = open.iter().position(|(c, _)| c == command).unwrap();
            let (command, started) = open.remove(i);
            calls.push((command, started, at));
        }
    }
    calls.sort_by_key(|call| call.1);
    let version = calls
        .iter()
        .find(|c| c.0 == "version")
        .expect("a version check");
    let inits: Vec<&(String, u128, u128)> = calls.iter().filter(|c| c.0 == "init").collect();
    assert_eq!(inits.len(), 2, "{notes}");
    assert!(
        inits[0].1 < version.2,
        "network's init started beside the version check:\n{notes}"
    );
    assert!(
        inits[1].1 > version.2,
        "storage's init (it sets required_version) waited for the check:\n{notes}"
    );
    let said = text(&ran.stderr);
    assert!(said.contains("Using opentofu v1.6.2."), "{said}");
    assert!(
        said.contains("network") && said.contains("storage:dev"),
        "{said}"
    );
}
