//! Times as the database stores them: milliseconds since the epoch, shown as RFC 3339.

/// Milliseconds since the Unix epoch, the one time format stored in the database.
pub fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

/// RFC 3339 text for a stored millisecond time.
pub fn rfc3339(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).map(|t| t.to_string()).unwrap_or_default()
}
