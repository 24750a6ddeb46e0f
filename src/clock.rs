//! Times as the logs and sidecars write them (RFC 3339, UTC), through the one time
//! crate the workspace uses.

use std::time::{Duration, SystemTime, UNIX_EPOCH};
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::OffsetDateTime;

/// `at` to the second: `2026-12-06T00:56:00Z`.
pub fn seconds(at: SystemTime) -> String {
    let at = OffsetDateTime::from(at);
    let whole = at.replace_nanosecond(0).unwrap_or(at);
    whole.format(&Rfc3339).unwrap_or_default()
}

/// Now, to the second.
pub fn now() -> String {
    seconds(SystemTime::now())
}

/// `at` to the millisecond, always with its three digits: `1970-01-01T00:00:00.000Z`.
pub fn millis(at: SystemTime) -> String {
    let format =
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    OffsetDateTime::from(at).format(&format).unwrap_or_default()
}

/// The time an RFC 3339 text names, to the second; `None` when it names none.
pub fn parse(text: &str) -> Option<SystemTime> {
    system_time(ctxlens_core::model::Timestamp::parse(text)?)
}

/// An event's time as the logs write it: `2026-12-06T00:56:00Z`.
pub fn rfc3339(at: ctxlens_core::model::Timestamp) -> String {
    system_time(at).map(seconds).unwrap_or_default()
}

fn system_time(at: ctxlens_core::model::Timestamp) -> Option<SystemTime> {
    let seconds = at.unix();
    match u64::try_from(seconds) {
        Ok(after) => UNIX_EPOCH.checked_add(Duration::from_secs(after)),
        Err(_) => UNIX_EPOCH.checked_sub(Duration::from_secs(seconds.unsigned_abs())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_as_the_sidecars_write_them() {
        let at = UNIX_EPOCH + Duration::from_millis(1_796_379_072_345);
        assert_eq!(seconds(at), "2026-12-04T10:11:12Z");
        assert_eq!(millis(at), "2026-12-04T10:11:12.345Z");
        assert_eq!(millis(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            parse("2026-12-04T10:11:12Z"),
            Some(UNIX_EPOCH + Duration::from_secs(1_796_379_072))
        );
        assert_eq!(parse("not a time"), None);
    }
}
