//! Times as the database stores them: milliseconds since the epoch, shown as RFC 3339.

/// Milliseconds since the Unix epoch, the one time format stored in the database.
pub fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

/// RFC 3339 text for a stored millisecond time.
pub fn rfc3339(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).map(timestamp_text).unwrap_or_default()
}

/// The one way the API writes an instant: RFC 3339 in UTC with milliseconds, always three digits
/// (`2026-11-27T19:41:36.500Z`, never `…36.5Z` beside `…36.512Z`), what `format: date-time` says.
pub fn timestamp_text(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Now, as [`timestamp_text`] writes it.
pub fn now_text() -> String {
    timestamp_text(jiff::Timestamp::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_are_written_with_three_digits_of_milliseconds() {
        assert_eq!(rfc3339(1_764_272_496_500), "2025-11-27T19:41:36.500Z");
        assert_eq!(rfc3339(1_764_272_496_000), "2025-11-27T19:41:36.000Z");
        assert_eq!(rfc3339(1_764_272_496_512), "2025-11-27T19:41:36.512Z");
        let now = now_text();
        assert_eq!(now.len(), "2025-11-27T19:41:36.512Z".len(), "{now}");
        assert!(now.parse::<jiff::Timestamp>().is_ok());
    }
}
