//! The calendar: when a deploy may happen (decision 0104 and our ADR 0025). Deploy
//! windows are weekly spans of wall-clock time; freezes are dated periods in which
//! nothing deploys by any path. Both are judged in the dashboard's time zone, by its
//! wall clock, so a window "09:00 to 17:00" means that on the day clocks change too.
//! What is stored for machines (markers, payloads) never holds these times: a record
//! only says it waits, and every run judges the calendar again from the configuration.

use jiff::civil::{Date, DateTime, Time, Weekday};
use jiff::tz::AmbiguousOffset;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime};

use crate::config::Position;

/// Minutes in a day; a window may close at `24:00`, which is this.
pub const DAY: u16 = 24 * 60;

/// How long before a freeze the dashboard starts to say it is coming.
pub const FREEZE_NOTICE_DAYS: i64 = 7;

/// One weekly window: on each of its days, from `opens` (inclusive) to `closes`
/// (exclusive), in minutes after midnight. It closes after it opens; a window over
/// midnight is written as two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub days: Vec<Weekday>,
    pub opens: u16,
    pub closes: u16,
}

impl Window {
    fn holds(&self, day: Weekday, minute: u16) -> bool {
        self.days.contains(&day) && (self.opens..self.closes).contains(&minute)
    }
}

/// The windows a stack deploys in. None at all means any time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Windows(pub Vec<Window>);

impl Windows {
    /// Any time: no window is set.
    pub fn always(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the wall clock in `zone` at `at` stands inside a window.
    pub fn open_at(&self, at: Timestamp, zone: &TimeZone) -> bool {
        if self.always() {
            return true;
        }
        let wall = at.to_zoned_datetime(zone.clone());
        let minute = minute_of(wall.time());
        self.0.iter().any(|w| w.holds(wall.weekday(), minute))
    }

    /// The first instant after `at` at which a window opens, when one is closed now. A
    /// window whose opening time a clock change skips opens at the first wall-clock
    /// minute that exists after it, if that is still inside the window.
    pub fn next_opening(&self, at: Timestamp, zone: &TimeZone) -> Option<ZonedDateTime> {
        if self.open_at(at, zone) {
            return None;
        }
        let today = at.to_zoned_datetime(zone.clone()).date();
        // A week and a day reaches every weekday's window from any instant.
        let mut day = today;
        for _ in 0..=8 {
            let mut best: Option<ZonedDateTime> = None;
            for window in self.0.iter().filter(|w| w.days.contains(&day.weekday())) {
                let Some(opening) = opening_on(day, window, zone) else {
                    continue;
                };
                if opening.timestamp() > at && best.as_ref().is_none_or(|b| opening < *b) {
                    best = Some(opening);
                }
            }
            if best.is_some() {
                return best;
            }
            day = day.tomorrow().ok()?;
        }
        None
    }
}

/// When `window` opens on `day` by the wall clock, if it opens that day at all.
fn opening_on(day: Date, window: &Window, zone: &TimeZone) -> Option<ZonedDateTime> {
    let time = Time::new(
        i8::try_from(window.opens / 60).ok()?,
        i8::try_from(window.opens % 60).ok()?,
        0,
        0,
    )
    .ok()?;
    let ambiguous = zone.to_ambiguous_zoned_datetime(day.to_datetime(time));
    let zoned = match ambiguous.offset() {
        // The wall time does not exist that day: the clock jumps over it, so the
        // window opens at the jump, the first wall-clock minute after it.
        AmbiguousOffset::Gap { .. } => {
            let past = ambiguous.compatible().ok()?;
            let jump = zone.preceding(past.timestamp()).next()?.timestamp();
            jump.to_zoned_datetime(zone.clone())
        }
        _ => ambiguous.compatible().ok()?,
    };
    let minute = minute_of(zoned.time());
    (zoned.date() == day && window.holds(day.weekday(), minute)).then_some(zoned)
}

fn minute_of(time: Time) -> u16 {
    u16::try_from(time.hour()).unwrap_or(0) * 60 + u16::try_from(time.minute()).unwrap_or(0)
}

/// A dated period in which nothing deploys: from `from` (inclusive) to `to`
/// (exclusive), wall-clock times in the dashboard's zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Freeze {
    pub from: DateTime,
    pub to: DateTime,
    pub reason: Option<String>,
    /// Where `sluiceway.yaml` sets its end, for `check` to name a freeze that is over.
    pub position: Position,
}

impl Freeze {
    pub fn starts(&self, zone: &TimeZone) -> Timestamp {
        instant(self.from, zone)
    }

    pub fn ends(&self, zone: &TimeZone) -> Timestamp {
        instant(self.to, zone)
    }

    pub fn active_at(&self, at: Timestamp, zone: &TimeZone) -> bool {
        self.starts(zone) <= at && at < self.ends(zone)
    }
}

fn instant(wall: DateTime, zone: &TimeZone) -> Timestamp {
    zone.to_ambiguous_timestamp(wall)
        .compatible()
        .unwrap_or(Timestamp::MAX)
}

/// The dashboard's zone and every freeze: what a run judges "now" against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Calendar {
    pub zone: TimeZone,
    pub freezes: Vec<Freeze>,
}

impl Default for Calendar {
    fn default() -> Self {
        Calendar {
            zone: TimeZone::UTC,
            freezes: Vec::new(),
        }
    }
}

impl Calendar {
    /// The freeze in force at `at`; of overlapping ones, the one that ends last, since
    /// nothing deploys until it ends.
    pub fn freeze_at(&self, at: Timestamp) -> Option<&Freeze> {
        self.freezes
            .iter()
            .filter(|f| f.active_at(at, &self.zone))
            .max_by_key(|f| f.ends(&self.zone))
    }

    /// The freezes that ended by `at`: they hold nothing any more, and `check` asks for
    /// them to be removed.
    pub fn freezes_over(&self, at: Timestamp) -> impl Iterator<Item = &Freeze> {
        self.freezes
            .iter()
            .filter(move |f| f.ends(&self.zone) <= at)
    }

    /// The freeze the dashboard tells of at `at`: the one in force, else the next to
    /// start within the notice period.
    pub fn freeze_to_tell(&self, at: Timestamp) -> Option<&Freeze> {
        if let Some(active) = self.freeze_at(at) {
            return Some(active);
        }
        let horizon = at
            .to_zoned_datetime(self.zone.clone())
            .checked_add(jiff::Span::new().days(FREEZE_NOTICE_DAYS))
            .map_or(Timestamp::MAX, |z| z.timestamp());
        self.freezes
            .iter()
            .filter(|f| {
                let starts = f.starts(&self.zone);
                at < starts && starts <= horizon
            })
            .min_by_key(|f| f.starts(&self.zone))
    }

    /// When a deploy of a stack with these windows may go out at `at`.
    pub fn judge(&self, windows: &Windows, at: Timestamp) -> Moment<'_> {
        if let Some(freeze) = self.freeze_at(at) {
            return Moment::Frozen(freeze);
        }
        match windows.next_opening(at, &self.zone) {
            None => Moment::Open,
            Some(opens) => Moment::Closed { opens },
        }
    }

    /// A time as the dashboard writes it, in its zone.
    pub fn wall_time(&self, at: Timestamp) -> String {
        wall_time(at, &self.zone)
    }
}

/// A time as the dashboard writes it: the wall clock in `zone` with its offset,
/// `2026-09-21 12:02 +02:00`, or `2026-09-21 10:02 UTC` for UTC itself.
pub fn wall_time(at: Timestamp, zone: &TimeZone) -> String {
    let wall = at.to_zoned_datetime(zone.clone());
    let offset = if zone.iana_name() == Some("UTC") {
        "UTC".to_owned()
    } else {
        wall.strftime("%:z").to_string()
    };
    format!("{} {offset}", wall.strftime("%Y-%m-%d %H:%M"))
}

/// What the calendar says of a deploy now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moment<'a> {
    /// It may go out now.
    Open,
    /// A freeze is in force: nothing deploys.
    Frozen(&'a Freeze),
    /// Outside every window of the stack; the next one opens then.
    Closed { opens: ZonedDateTime },
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn zone(name: &str) -> TimeZone {
        TimeZone::get(name).unwrap()
    }

    fn at(text: &str, zone: &TimeZone) -> Timestamp {
        text.parse::<DateTime>()
            .unwrap()
            .to_zoned_datetime(zone.clone())
            .unwrap()
            .timestamp()
    }

    fn weekdays() -> Vec<Weekday> {
        use Weekday::*;
        vec![Monday, Tuesday, Wednesday, Thursday, Friday]
    }

    fn office() -> Windows {
        Windows(vec![Window {
            days: weekdays(),
            opens: 9 * 60,
            closes: 17 * 60,
        }])
    }

    #[test]
    fn a_window_opens_at_its_start_and_is_closed_at_its_end() {
        let utc = TimeZone::UTC;
        // 2026-12-07 is a Monday.
        assert!(!office().open_at(at("2026-12-07T08:59", &utc), &utc));
        assert!(office().open_at(at("2026-12-07T09:00", &utc), &utc));
        assert!(office().open_at(at("2026-12-07T16:59:59", &utc), &utc));
        assert!(!office().open_at(at("2026-12-07T17:00", &utc), &utc));
        assert!(
            !office().open_at(at("2026-12-05T12:00", &utc), &utc),
            "Saturday"
        );
        assert!(Windows::default().open_at(at("2026-12-05T03:00", &utc), &utc));
    }

    #[test]
    fn a_window_to_midnight_is_written_24_00_and_holds_the_last_minute() {
        let utc = TimeZone::UTC;
        let late = Windows(vec![Window {
            days: vec![Weekday::Friday],
            opens: 22 * 60,
            closes: DAY,
        }]);
        assert!(late.open_at(at("2026-12-04T23:59:59", &utc), &utc));
        assert!(!late.open_at(at("2026-12-05T00:00", &utc), &utc));
    }

    #[test]
    fn the_next_opening_is_the_next_window_by_the_wall_clock() {
        let amsterdam = zone("Europe/Amsterdam");
        let friday_evening = at("2026-12-04T18:00", &amsterdam);
        let opens = office().next_opening(friday_evening, &amsterdam).unwrap();
        assert_eq!(
            opens.strftime("%Y-%m-%d %H:%M %:z").to_string(),
            "2026-12-07 09:00 +01:00"
        );
        assert_eq!(
            office().next_opening(at("2026-12-07T10:00", &amsterdam), &amsterdam),
            None,
            "open now"
        );
    }

    #[test]
    fn windows_follow_the_wall_clock_over_a_clock_change() {
        // Europe/Amsterdam springs forward on 2026-03-29 at 02:00 to 03:00.
        let amsterdam = zone("Europe/Amsterdam");
        let night = Windows(vec![Window {
            days: vec![Weekday::Sunday],
            opens: 2 * 60 + 30,
            closes: 4 * 60,
        }]);
        let before = at("2026-03-29T01:00", &amsterdam);
        let opens = night.next_opening(before, &amsterdam).unwrap();
        assert_eq!(
            opens.strftime("%H:%M %:z").to_string(),
            "03:00 +02:00",
            "02:30 does not exist that night; the window opens when the clock reaches it"
        );
        // A window wholly inside the skipped hour does not open that day.
        let skipped = Windows(vec![Window {
            days: vec![Weekday::Sunday],
            opens: 2 * 60,
            closes: 2 * 60 + 30,
        }]);
        let next = skipped.next_opening(before, &amsterdam).unwrap();
        assert_eq!(next.date(), "2026-04-05".parse::<Date>().unwrap());
    }

    #[test]
    fn a_freeze_holds_from_its_start_until_its_end() {
        let zone = zone("America/New_York");
        let calendar = Calendar {
            zone: zone.clone(),
            freezes: vec![Freeze {
                from: "2026-12-20T18:00".parse().unwrap(),
                to: "2027-01-04T08:00".parse().unwrap(),
                reason: Some("holidays".into()),
                position: Position::default(),
            }],
        };
        assert_eq!(
            calendar.freezes_over(at("2027-01-04T07:59", &zone)).count(),
            0
        );
        assert_eq!(
            calendar.freezes_over(at("2027-01-04T08:00", &zone)).count(),
            1
        );
        assert_eq!(calendar.freeze_at(at("2026-12-20T17:59", &zone)), None);
        assert!(calendar.freeze_at(at("2026-12-20T18:00", &zone)).is_some());
        assert!(calendar.freeze_at(at("2027-01-04T07:59", &zone)).is_some());
        assert_eq!(calendar.freeze_at(at("2027-01-04T08:00", &zone)), None);
        assert!(
            calendar
                .freeze_to_tell(at("2026-12-14T09:00", &zone))
                .is_some(),
            "a week before"
        );
        assert_eq!(
            calendar.freeze_to_tell(at("2026-12-12T09:00", &zone)),
            None,
            "more than a week before"
        );
        assert!(matches!(
            calendar.judge(&Windows::default(), at("2026-12-25T12:00", &zone)),
            Moment::Frozen(_)
        ));
    }

    /// The zones the properties are held in: three with clock changes (two
    /// northern, one southern), one without.
    fn zones() -> impl Strategy<Value = TimeZone> {
        prop_oneof![
            Just(zone("Europe/Amsterdam")),
            Just(zone("America/New_York")),
            Just(zone("Australia/Sydney")),
            Just(TimeZone::UTC),
        ]
    }

    fn windows() -> impl Strategy<Value = Windows> {
        let window = (
            proptest::sample::subsequence(
                vec![
                    Weekday::Monday,
                    Weekday::Tuesday,
                    Weekday::Wednesday,
                    Weekday::Thursday,
                    Weekday::Friday,
                    Weekday::Saturday,
                    Weekday::Sunday,
                ],
                1..=7,
            ),
            0u16..DAY,
        )
            .prop_flat_map(|(days, opens)| {
                ((opens + 1)..=DAY).prop_map(move |closes| Window {
                    days: days.clone(),
                    opens,
                    closes,
                })
            });
        proptest::collection::vec(window, 1..4).prop_map(Windows)
    }

    /// Instants over 2026, half of them within three days of a clock change of one of
    /// the zones above (Amsterdam, New York and Sydney, each way).
    fn instants() -> impl Strategy<Value = Timestamp> {
        const CHANGES: [i64; 6] = [
            1774746000, 1792890000, 1772953200, 1793512800, 1775318400, 1791043200,
        ];
        prop_oneof![
            1_767_225_600i64..1_798_761_600,
            (
                proptest::sample::select(CHANGES.to_vec()),
                -259_200i64..259_200
            )
                .prop_map(|(change, near)| change + near),
        ]
        .prop_map(|s| Timestamp::from_second(s).unwrap())
    }

    proptest! {
        #[test]
        fn the_next_opening_is_the_first_open_minute_after_now(
            windows in windows(), now in instants(), zone in zones()
        ) {
            match windows.next_opening(now, &zone) {
                None => prop_assert!(windows.open_at(now, &zone)),
                Some(opens) => {
                    prop_assert!(!windows.open_at(now, &zone));
                    prop_assert!(opens.timestamp() > now);
                    prop_assert!(windows.open_at(opens.timestamp(), &zone));
                    // Every whole minute between now and the opening is closed: the
                    // brute-force oracle, minute by minute.
                    let mut t = now;
                    let step = jiff::SignedDuration::from_secs(60);
                    let first = Timestamp::from_second(now.as_second() - now.as_second().rem_euclid(60) + 60).unwrap();
                    t = t.max(first);
                    while t < opens.timestamp() {
                        prop_assert!(!windows.open_at(t, &zone), "open at {t} before {opens}");
                        t = t.checked_add(step).unwrap();
                    }
                }
            }
        }

        #[test]
        fn a_window_is_judged_by_the_wall_clock_of_the_zone(
            windows in windows(), now in instants(), zone in zones()
        ) {
            let wall = now.to_zoned_datetime(zone.clone());
            let minute = minute_of(wall.time());
            let by_hand = windows.0.iter().any(|w| w.days.contains(&wall.weekday()) && w.opens <= minute && minute < w.closes);
            prop_assert_eq!(windows.open_at(now, &zone), by_hand);
        }

        #[test]
        fn a_freeze_holds_exactly_its_instants(
            start in instants(), hours in 1i64..2000, probe in instants(), zone in zones()
        ) {
            let from = start.to_zoned_datetime(zone.clone()).datetime();
            let to = from.checked_add(jiff::Span::new().hours(hours)).unwrap();
            let freeze = Freeze {
                from,
                to,
                reason: None,
                position: Position::default(),
            };
            let calendar = Calendar { zone: zone.clone(), freezes: vec![freeze.clone()] };
            let inside = freeze.starts(&zone) <= probe && probe < freeze.ends(&zone);
            prop_assert_eq!(calendar.freeze_at(probe).is_some(), inside);
            prop_assert_eq!(calendar.judge(&Windows::default(), probe) == Moment::Open, !inside);
        }
    }
}
