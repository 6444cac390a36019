//! The failure reasons a row can show, drawn from the code's own list: the sentence the
//! row shows, what it means, and what to do.

use sluiceway_core::failure::FailureReason;

/// The reference page.
pub fn page() -> String {
    let mut out = String::from(
        "# Failure reasons\n\n\
         <!-- Drawn by `cargo run -p sluiceway-book -- generate` from the code's list of failure reasons; do not edit. -->\n\n\
         When a preview, a drift check or a deploy gives no result, its row says why in one of \
         these sentences, and nothing else: a tool's own words may hold values, so they stay in \
         the job log, which the row links. Figures in a sentence (an exit code, minutes, a tool) \
         are Sluiceway's own facts; the ones below are examples. A reason marked *retried* gets \
         one more try after a pause in the same scan.\n",
    );
    for reason in FailureReason::every() {
        let retried = if reason.is_retryable() {
            " *(retried)*"
        } else {
            ""
        };
        out.push_str(&format!(
            "\n## {}{retried}\n\n{}\n",
            capitalized(&reason.to_string()),
            reason.remedy()
        ));
    }
    out
}

fn capitalized(sentence: &str) -> String {
    let mut chars = sentence.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
