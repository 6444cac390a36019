//! Personal tokens: `sluiceway_` and forty random letters and digits, for one org and one
//! person, for 30, 90 or 365 days. A token is shown once, when it is made; the store keeps
//! its SHA-256 alone, so a copy of the database signs nobody in.

use jiff::{SignedDuration, Timestamp};
use sha2::{Digest, Sha256};

pub const PREFIX: &str = "sluiceway_";

/// The lives a token may have, in days.
pub const LIVES: [u16; 3] = [30, 90, 365];

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LENGTH: usize = 40;

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("a token lives 30, 90 or 365 days, not {0}")]
    Life(u16),
    #[error("the system's random source did not answer: {0}")]
    Random(String),
}

/// A token as it is made: the secret, shown once, and what the store keeps of it.
#[derive(Debug)]
pub struct Minted {
    pub secret: String,
    pub hash: String,
    pub expires_at: Timestamp,
}

/// Makes a token that lives `days` from `now`.
pub fn mint(days: u16, now: Timestamp) -> Result<Minted, TokenError> {
    if !LIVES.contains(&days) {
        return Err(TokenError::Life(days));
    }
    let mut secret = String::from(PREFIX);
    // Bytes at or above the largest multiple of the alphabet's size are drawn again,
    // so every letter is as likely as any other.
    let limit = 256 - 256 % ALPHABET.len();
    while secret.len() < PREFIX.len() + LENGTH {
        let mut bytes = [0u8; 64];
        getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
        for byte in bytes {
            if usize::from(byte) < limit && secret.len() < PREFIX.len() + LENGTH {
                secret.push(char::from(ALPHABET[usize::from(byte) % ALPHABET.len()]));
            }
        }
    }
    let life = SignedDuration::from_hours(24 * i64::from(days));
    Ok(Minted {
        hash: hash(&secret),
        expires_at: now.saturating_add(life).unwrap_or(now),
        secret,
    })
}

/// What the store keeps of a token, and looks one up by.
pub fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_starts_with_the_prefix_and_is_not_kept_as_itself() {
        let now: Timestamp = "2026-12-07T12:00:00Z".parse().unwrap();
        let minted = mint(90, now).unwrap();
        assert!(minted.secret.starts_with(PREFIX));
        assert_eq!(minted.secret.len(), PREFIX.len() + LENGTH);
        assert!(
            minted.secret[PREFIX.len()..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric())
        );
        assert_eq!(minted.hash, hash(&minted.secret));
        assert!(!minted.hash.contains(&minted.secret[PREFIX.len()..]));
        assert_eq!(
            minted.expires_at,
            "2027-03-07T12:00:00Z".parse::<Timestamp>().unwrap()
        );
        assert_ne!(mint(90, now).unwrap().secret, minted.secret);
    }

    #[test]
    fn a_life_other_than_30_90_or_365_days_is_refused() {
        let now = Timestamp::UNIX_EPOCH;
        for days in [0, 1, 31, 364, 366] {
            assert!(matches!(mint(days, now), Err(TokenError::Life(d)) if d == days));
        }
    }
}
