//! Money as the cost estimates speak it (decision 0105): whole hundredths of the
//! estimate's currency, so a threshold compares exactly and a line prints the same
//! digits on every run.

use std::fmt;

/// An amount in hundredths of a currency unit (cents), rounded half away from zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Amount(i64);

impl Amount {
    pub const ZERO: Amount = Amount(0);

    /// From whole cents, as a sharded scan's partial result carries it.
    pub const fn from_cents(cents: i64) -> Amount {
        Amount(cents)
    }

    pub const fn cents(self) -> i64 {
        self.0
    }

    /// From a number as the configuration writes it (`50`, `99.5`); `None` for one that
    /// is not finite or does not fit.
    pub fn from_f64(value: f64) -> Option<Amount> {
        let cents = (value * 100.0).round();
        (cents.is_finite() && cents.abs() < 9.0e15).then_some(Amount(cents as i64))
    }

    /// From a decimal as an estimate writes it (`"32.368"`, `"-2"`, `"0"`); `None` for
    /// anything else. Only the first three decimals are read, which round exactly.
    pub fn parse(text: &str) -> Option<Amount> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if whole.is_empty()
            || whole.len() > 15
            || !whole.bytes().all(|b| b.is_ascii_digit())
            || !fraction.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut thousandths: i64 = whole.parse::<i64>().ok()? * 1000;
        for (i, place) in [100, 10, 1].into_iter().enumerate() {
            thousandths += i64::from(fraction.as_bytes().get(i).map_or(0, |b| b - b'0')) * place;
        }
        let cents = (thousandths + 5) / 10;
        Some(Amount(if negative { -cents } else { cents }))
    }

    pub fn is_zero(self) -> bool {
        self.0 == 0
    }

    pub fn is_negative(self) -> bool {
        self.0 < 0
    }

    /// The same amount without its sign.
    pub fn abs(self) -> Amount {
        Amount(self.0.abs())
    }
}

/// `31.20`, `-2.00`: always two decimals.
impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let cents = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:02}", cents / 100, cents % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_estimates_decimals_round_to_cents() {
        for (text, shown) in [
            ("32.368", "32.37"),
            ("-32.368", "-32.37"),
            ("2", "2.00"),
            ("0", "0.00"),
            ("0.004", "0.00"),
            ("0.005", "0.01"),
            ("120.5", "120.50"),
        ] {
            assert_eq!(Amount::parse(text).unwrap().to_string(), shown, "{text}");
        }
        for bad in ["", "-", "1e3", "1,5", "NaN", ".5", "12.3.4"] {
            assert_eq!(Amount::parse(bad), None, "{bad}");
        }
        assert_eq!(Amount::from_f64(99.5).unwrap().to_string(), "99.50");
        assert_eq!(Amount::from_f64(f64::INFINITY), None);
    }

    proptest! {
        #[test]
        fn cents_written_with_two_decimals_read_back_as_themselves(cents in -10_000_000_000i64..10_000_000_000) {
            let amount = Amount(cents);
            prop_assert_eq!(Amount::parse(&amount.to_string()), Some(amount));
        }
    }
}
