//! Reading request cookies and writing `Set-Cookie` with the contract's flags.

use axum::http::{HeaderMap, HeaderValue, header};

pub fn get(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| k.trim() == name)
        .map(|(_, v)| v.trim().to_string())
}

/// `HttpOnly; SameSite=Strict; Path=/`, `Secure` when the request came over https.
pub fn session(name: &str, value: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!("{name}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_secs}{secure}"))
        .expect("cookie values are hex")
}

/// A readable, secret-free cookie that only tells the app a session cookie exists, so it does
/// not ask the server for a current user or an admin check on every anonymous visit.
pub fn hint(name: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    let value = if max_age_secs > 0 { "1" } else { "" };
    HeaderValue::from_str(&format!("{name}={value}; SameSite=Strict; Path=/; Max-Age={max_age_secs}{secure}"))
        .expect("ascii cookie")
}

pub const USER_HINT: &str = "fanhub_hint_user";
pub const ADMIN_HINT: &str = "fanhub_hint_admin";

pub fn clear(name: &str, secure: bool) -> HeaderValue {
    session(name, "", 0, secure)
}

/// Percent-decoding for the privacy cookie (written by the app with encodeURIComponent).
pub fn percent_decode(value: &str) -> String {
    fn hex_digit(b: u8) -> Option<u8> {
        (b as char).to_digit(16).map(|d| d as u8)
    }
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(hi), Some(lo)) = (hex_digit(bytes[i + 1]), hex_digit(bytes[i + 2]))
        {
            out.push(hi * 16 + lo);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether the visitor's privacy settings allow logging their full IP (default: no).
pub fn ip_logging_allowed(headers: &HeaderMap) -> bool {
    get(headers, "fanhub_privacy")
        .map(|raw| percent_decode(&raw))
        .and_then(|json| serde_json::from_str::<serde_json::Value>(&json).ok())
        .and_then(|v| v.get("ipLogging").and_then(|b| b.as_bool()))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cookies_and_privacy_choice() {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_static("a=1; fanhub_privacy=%7B%22ipLogging%22%3Atrue%7D"));
        assert_eq!(get(&h, "a").as_deref(), Some("1"));
        assert!(ip_logging_allowed(&h));
        h.insert(header::COOKIE, HeaderValue::from_static("fanhub_privacy=%7B%22ipLogging%22%3Afalse%7D"));
        assert!(!ip_logging_allowed(&h));
        h.insert(header::COOKIE, HeaderValue::from_static("fanhub_privacy=%E0%ZZ"));
        assert!(!ip_logging_allowed(&h));
    }

    #[test]
    fn session_cookie_flags() {
        let c = session("fanhub_session", "ab", 60, true);
        assert_eq!(c, "fanhub_session=ab; HttpOnly; SameSite=Strict; Path=/; Max-Age=60; Secure");
    }
}
