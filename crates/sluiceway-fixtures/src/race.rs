//! Decision 0090: a recorded `kubectl diff` whose two sides of one object carry
//! different `metadata.resourceVersion`s raced a controller's write between kubectl's
//! read of the live object and the server's dry run. Such a recording is taken again.
//!
//! A clean diff always shows one version per object: the dry run keeps the version it
//! read. So an object raced when its part of the output both removes and adds a
//! `resourceVersion` line directly under `metadata` (two spaces in). An unchanged line
//! starts with a space and never matches, and objects are told apart at each `diff `
//! header line, so a live-only object and a merged-only one never combine.

/// Whether any object in this `kubectl diff` output raced a write.
pub fn raced_write(stdout: &str) -> bool {
    let mut removed = false;
    let mut added = false;
    for line in stdout.lines() {
        if line.starts_with("diff ") {
            removed = false;
            added = false;
            continue;
        }
        removed |= is_version_line(line, '-');
        added |= is_version_line(line, '+');
        if removed && added {
            return true;
        }
    }
    false
}

fn is_version_line(line: &str, sign: char) -> bool {
    line.strip_prefix(sign)
        .and_then(|rest| rest.strip_prefix("  "))
        .is_some_and(|rest| rest.starts_with("resourceVersion:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "diff -N -U1000000 /tmp/LIVE-1/apps.v1.Deployment.ns.web /tmp/MERGED-2/apps.v1.Deployment.ns.web\n--- a\n+++ b\n";

    #[test]
    fn two_versions_of_one_object_raced() {
        let raced = format!(
            "{HEADER}@@ -1,3 +1,3 @@\n metadata:\n-  resourceVersion: \"561\"\n+  resourceVersion: \"572\"\n"
        );
        assert!(raced_write(&raced));
    }

    #[test]
    fn a_race_in_the_second_object_is_found() {
        let clean = format!("{HEADER}@@ -1,2 +1,2 @@\n metadata:\n   resourceVersion: \"5\"\n");
        let raced = format!(
            "{clean}{HEADER}@@ -1,3 +1,3 @@\n metadata:\n-  resourceVersion: \"6\"\n+  resourceVersion: \"7\"\n"
        );
        assert!(!raced_write(&clean));
        assert!(raced_write(&raced));
    }

    #[test]
    fn creates_deeper_lines_and_separate_objects_are_not_races() {
        assert!(!raced_write(""));
        let create = format!("{HEADER}@@ -0,0 +1,2 @@\n+metadata:\n+  resourceVersion: \"9\"\n");
        assert!(!raced_write(&create));
        let deeper = format!(
            "{HEADER}@@ -1,3 +1,3 @@\n spec:\n-    resourceVersion: \"1\"\n+    resourceVersion: \"2\"\n"
        );
        assert!(!raced_write(&deeper));
        let live_only = format!("{HEADER}@@ -1,2 +0,0 @@\n-metadata:\n-  resourceVersion: \"3\"\n");
        let merged_only =
            format!("{HEADER}@@ -0,0 +1,2 @@\n+metadata:\n+  resourceVersion: \"4\"\n");
        assert!(!raced_write(&format!("{live_only}{merged_only}")));
    }
}
