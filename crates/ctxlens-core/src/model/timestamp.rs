//! An event's time in eight bytes: a session holds an event per record, and a time kept
//! as the text it was written as would cost a heap block per event.

use std::num::NonZeroU64;

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// A point in time to the second, in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(NonZeroU64);

/// Flipping the sign bit maps every second RFC 3339 can name (years 0 to 9999) to a
/// non-zero value, so an `Option<Timestamp>` takes no more room than the time.
const BIAS: u64 = 1 << 63;

impl Timestamp {
    /// The time an RFC 3339 text names (`2026-12-04T10:00:00.123Z`, `…+02:00`); `None`
    /// when it names none.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let at = OffsetDateTime::parse(text, &Rfc3339).ok()?;
        Timestamp::from_unix(at.unix_timestamp())
    }

    /// The time `seconds` after the Unix epoch.
    pub fn from_unix(seconds: i64) -> Option<Timestamp> {
        NonZeroU64::new(seconds.cast_unsigned() ^ BIAS).map(Timestamp)
    }

    /// Seconds since the Unix epoch.
    pub fn unix(self) -> i64 {
        (self.0.get() ^ BIAS).cast_signed()
    }

    /// The time of day, `HH:MM:SS` in UTC.
    pub fn clock(self) -> String {
        let of_day = self.unix().rem_euclid(86_400);
        format!(
            "{:02}:{:02}:{:02}",
            of_day / 3600,
            of_day / 60 % 60,
            of_day % 60
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_read_to_the_second_in_utc() {
        let at = Timestamp::parse("2026-12-04T10:11:12.345Z").unwrap();
        assert_eq!(at.unix(), 1_796_379_072);
        assert_eq!(at.clock(), "10:11:12");
        let east = Timestamp::parse("2026-12-04T12:11:12+02:00").unwrap();
        assert_eq!(east, at);
        assert_eq!(Timestamp::parse("1970-01-01T00:00:00Z").unwrap().unix(), 0);
        assert_eq!(
            Timestamp::parse("1969-12-31T23:59:59Z").unwrap().clock(),
            "23:59:59"
        );
        for bad in ["", "yesterday", "2026-12-04", "2026-13-04T10:00:00Z"] {
            assert_eq!(Timestamp::parse(bad), None, "{bad}");
        }
        assert_eq!(size_of::<Option<Timestamp>>(), 8);
    }
}
