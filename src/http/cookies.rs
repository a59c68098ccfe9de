//! Reading request cookies and writing `Set-Cookie` with the server's flags (`SameSite=Strict`,
//! `Path=/`, `HttpOnly` for the session, `Secure` over https).
//!
//! Over https the server's cookies are named `__Host-<name>`: the browser keeps such a cookie
//! only when it is `Secure`, has `Path=/` and no `Domain`, so neither a sibling subdomain nor a
//! plain-http page can plant or overwrite one. Over plain http (a loopback address, a test) they
//! keep the bare name. Over https only the prefixed names count: the request middleware drops the
//! bare authenticating cookies first ([`drop_bare_auth_cookies`]), so one planted by a sibling
//! subdomain or over http is never taken for a session (a session set before the site moved to
//! https signs in again once).

use axum::http::{HeaderMap, HeaderValue, header};

/// The prefix of a cookie the browser binds to this host, https and path `/`.
pub const HOST_PREFIX: &str = "__Host-";

/// A cookie's name as this request sets it: `__Host-name` over https, `name` over http.
pub fn named(name: &str, secure: bool) -> String {
    if secure { format!("{HOST_PREFIX}{name}") } else { name.to_string() }
}

fn values<'a>(headers: &'a HeaderMap, name: &'a str) -> impl Iterator<Item = String> + 'a {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.split_once('='))
        .filter(move |(k, _)| k.trim() == name)
        .map(|(_, v)| v.trim().to_string())
}

/// Removes the authenticating cookies sent under their bare names (`fanhub_session`, not
/// `__Host-fanhub_session`) from the request: over https only the `__Host-` ones are taken.
pub fn drop_bare_auth_cookies(headers: &mut HeaderMap, auth_names: &[&str]) {
    let kept: Vec<String> = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .filter(|pair| !pair.split_once('=').is_some_and(|(k, _)| auth_names.contains(&k.trim())))
                .map(str::trim)
                .collect::<Vec<_>>()
                .join("; ")
        })
        .filter(|v| !v.is_empty())
        .collect();
    headers.remove(header::COOKIE);
    for v in kept {
        if let Ok(v) = HeaderValue::from_str(&v) {
            headers.append(header::COOKIE, v);
        }
    }
}

/// The value of the cookie `name`: `__Host-name` when the request has it, else `name`.
pub fn get(headers: &HeaderMap, name: &str) -> Option<String> {
    values(headers, &format!("{HOST_PREFIX}{name}")).next().or_else(|| values(headers, name).next())
}

/// Every value sent under `__Host-name` or `name` (signing out ends each session they name).
pub fn get_all(headers: &HeaderMap, name: &str) -> Vec<String> {
    let prefixed = format!("{HOST_PREFIX}{name}");
    values(headers, &prefixed).chain(values(headers, name)).collect()
}

/// `HttpOnly; SameSite=Strict; Path=/`, `Secure` (and the `__Host-` name) over https.
pub fn session(name: &str, value: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    let (name, secure) = (named(name, secure), if secure { "; Secure" } else { "" });
    HeaderValue::from_str(&format!("{name}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_secs}{secure}"))
        .expect("cookie values are hex")
}

/// A readable, secret-free cookie that only tells the app a session cookie exists, so it does
/// not ask the server for a current user or an admin check on every anonymous visit.
pub fn hint(name: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    let (name, secure) = (named(name, secure), if secure { "; Secure" } else { "" });
    let value = if max_age_secs > 0 { "1" } else { "" };
    HeaderValue::from_str(&format!("{name}={value}; SameSite=Strict; Path=/; Max-Age={max_age_secs}{secure}"))
        .expect("ascii cookie")
}

pub const USER_HINT: &str = "fanhub_hint_user";
pub const ADMIN_HINT: &str = "fanhub_hint_admin";

/// Removes the cookie `name` from the browser: the name this request sets and, over https, the
/// bare name a session from before the move to https may still carry.
pub fn clear(res: &mut HeaderMap, name: &str, secure: bool) {
    res.append(header::SET_COOKIE, session(name, "", 0, secure));
    if secure {
        res.append(header::SET_COOKIE, session(name, "", 0, false));
    }
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
        assert_eq!(c, "__Host-fanhub_session=ab; HttpOnly; SameSite=Strict; Path=/; Max-Age=60; Secure");
        let c = session("fanhub_session", "ab", 60, false);
        assert_eq!(c, "fanhub_session=ab; HttpOnly; SameSite=Strict; Path=/; Max-Age=60");
        assert_eq!(hint(USER_HINT, 60, true), "__Host-fanhub_hint_user=1; SameSite=Strict; Path=/; Max-Age=60; Secure");
    }

    #[test]
    fn the_host_prefixed_name_is_read_first_and_both_are_cleared() {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_static("fanhub_session=old; __Host-fanhub_session=new"));
        assert_eq!(get(&h, "fanhub_session").as_deref(), Some("new"));
        assert_eq!(get_all(&h, "fanhub_session"), ["new", "old"]);
        h.insert(header::COOKIE, HeaderValue::from_static("fanhub_session=old"));
        assert_eq!(get(&h, "fanhub_session").as_deref(), Some("old"));
        let mut res = HeaderMap::new();
        clear(&mut res, "fanhub_session", true);
        let set: Vec<_> = res.get_all(header::SET_COOKIE).iter().map(|v| v.to_str().unwrap().to_string()).collect();
        assert!(set[0].starts_with("__Host-fanhub_session=; ") && set[0].contains("Max-Age=0"), "{set:?}");
        assert!(set[1].starts_with("fanhub_session=; ") && set[1].contains("Max-Age=0"), "{set:?}");
    }

    #[test]
    fn over_https_bare_auth_cookies_are_dropped_and_the_rest_kept() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("fanhub_session=planted; theme=light; __Host-fanhub_session=real"),
        );
        h.append(header::COOKIE, HeaderValue::from_static("fanhub_admin=planted"));
        drop_bare_auth_cookies(&mut h, &["fanhub_session", "fanhub_admin"]);
        assert_eq!(get(&h, "fanhub_session").as_deref(), Some("real"));
        assert_eq!(get(&h, "fanhub_admin"), None);
        assert_eq!(get(&h, "theme").as_deref(), Some("light"));
        assert_eq!(h.get_all(header::COOKIE).iter().count(), 1, "an emptied header is removed");
    }
}
