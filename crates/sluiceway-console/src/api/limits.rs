//! The rate limit: so many requests a minute per token, counted in fixed one-minute
//! windows. Kept in memory: an instance counts what it answers, and a restart forgets.

use std::collections::HashMap;
use std::sync::Mutex;

use jiff::Timestamp;

/// Reads a token may make in a minute (the API's description).
pub(super) const READS_A_MINUTE: u32 = 120;
/// Writes a token may make in a minute: ticks and rescans, each of which asks GitHub.
pub(super) const WRITES_A_MINUTE: u32 = 10;

#[derive(Default)]
pub struct Limits {
    windows: Mutex<HashMap<String, (i64, u32)>>,
}

impl Limits {
    /// Counts one request by the token whose hash is `token` at `now`; `Err` holds the
    /// seconds until the next window when it is one too many.
    pub fn take(&self, token: &str, now: Timestamp, limit: u32) -> Result<(), u64> {
        let minute = now.as_second().div_euclid(60);
        let mut windows = self
            .windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        windows.retain(|_, (window, _)| *window == minute);
        let (_, used) = windows.entry(token.to_owned()).or_insert((minute, 0));
        if *used >= limit {
            return Err(u64::try_from((minute + 1) * 60 - now.as_second()).unwrap_or(60));
        }
        *used += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_past_the_limit_waits_for_the_next_minute() {
        let limits = Limits::default();
        let at: Timestamp = "2026-12-07T12:00:15Z".parse().unwrap();
        for _ in 0..3 {
            assert_eq!(limits.take("a", at, 3), Ok(()));
        }
        assert_eq!(limits.take("a", at, 3), Err(45));
        assert_eq!(
            limits.take("b", at, 3),
            Ok(()),
            "each token has its own count"
        );
        let next: Timestamp = "2026-12-07T12:01:00Z".parse().unwrap();
        assert_eq!(limits.take("a", next, 3), Ok(()));
    }
}
