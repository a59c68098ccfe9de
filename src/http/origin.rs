//! The public origin (`https://host[:port]`) that canonical URLs, link cards and the sitemap
//! use: `base_url` from site.toml when set, else the request's `Host` (checked to be a plain
//! host name) with the scheme a trusted proxy reported.

use axum::http::{HeaderMap, header};

use crate::http::client_ip::ClientIp;

/// The longest host (with port) believed: a DNS name is at most 253 characters.
const MAX_HOST_LEN: usize = 253 + 6;

/// `host`, lower-cased, when it is a DNS name, an IPv4 address or a bracketed IPv6 address,
/// optionally with a port; `None` for anything else (quotes, brackets, spaces, paths, ...).
pub fn valid_host(host: &str) -> Option<String> {
    if host.is_empty() || host.len() > MAX_HOST_LEN {
        return None;
    }
    let (name, port) = if let Some(v6) = host.strip_prefix('[') {
        let end = v6.find(']')?;
        let addr = &v6[..end];
        addr.parse::<std::net::Ipv6Addr>().ok()?;
        let rest = &v6[end + 1..];
        let port = if rest.is_empty() { None } else { Some(rest.strip_prefix(':')?) };
        (None, port)
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (Some(name), Some(port)),
            None => (Some(host), None),
        }
    };
    if let Some(port) = port
        && (port.is_empty()
            || port.len() > 5
            || !port.bytes().all(|b| b.is_ascii_digit())
            || port.parse::<u16>().is_err())
    {
        return None;
    }
    if let Some(name) = name {
        let label_ok = |l: &str| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        };
        if !name.trim_end_matches('.').split('.').all(label_ok) {
            return None;
        }
    }
    Some(host.to_ascii_lowercase())
}

/// The origin of this request: the configured base URL, else scheme + checked `Host`.
pub fn of_request(base_url: Option<&str>, headers: &HeaderMap, client: Option<&ClientIp>) -> Option<String> {
    if let Some(base) = base_url {
        return Some(base.to_string());
    }
    let host = valid_host(headers.get(header::HOST)?.to_str().ok()?)?;
    let scheme = if client.is_some_and(|c| c.https) { "https" } else { "http" };
    Some(format!("{scheme}://{host}"))
}

/// Whether the request came in under the host of an `https://` base URL: the browser then
/// talks https to the site (a proxy in front of it ends TLS), even when no trusted proxy says so.
pub fn under_https_base_url(base_url: Option<&str>, headers: &HeaderMap) -> bool {
    let Some(host) = base_url.and_then(|b| b.strip_prefix("https://")) else { return false };
    headers.get(header::HOST).and_then(|v| v.to_str().ok()).is_some_and(|h| h.eq_ignore_ascii_case(host))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn accepts_plain_hosts() {
        for (host, want) in [
            ("fans.example.org", "fans.example.org"),
            ("Fans.Example.ORG:8443", "fans.example.org:8443"),
            ("127.0.0.1:8080", "127.0.0.1:8080"),
            ("localhost", "localhost"),
            ("[::1]:8080", "[::1]:8080"),
            ("[2001:db8::1]", "[2001:db8::1]"),
        ] {
            assert_eq!(valid_host(host).as_deref(), Some(want), "{host}");
        }
    }

    #[test]
    fn refuses_anything_that_could_escape_an_attribute_or_a_url() {
        let long = "a".repeat(300);
        for host in [
            "",
            "evil\"><script>alert(1)</script>",
            "a'b",
            "a b",
            "a/b",
            "a@b",
            "a<b",
            "x.org:80:80",
            "x.org:99999",
            "x.org:",
            "-x.org",
            "[::1",
            "[nope]",
            "[::1]x",
            "x..org",
            long.as_str(),
        ] {
            assert_eq!(valid_host(host), None, "{host}");
        }
    }

    #[test]
    fn base_url_wins_over_the_host_header() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("attacker.example"));
        assert_eq!(of_request(Some("https://fans.example.org"), &h, None).as_deref(), Some("https://fans.example.org"));
        assert_eq!(of_request(None, &h, None).as_deref(), Some("http://attacker.example"));
        let https = ClientIp { ip: [127, 0, 0, 1].into(), forwarded: true, peer_is_loopback: true, https: true };
        assert_eq!(of_request(None, &h, Some(&https)).as_deref(), Some("https://attacker.example"));
        h.insert(header::HOST, HeaderValue::from_static("a\"b"));
        assert_eq!(of_request(None, &h, None), None);
    }

    #[test]
    fn https_only_under_the_host_of_an_https_base_url() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("Fans.Example.org"));
        assert!(under_https_base_url(Some("https://fans.example.org"), &h));
        assert!(!under_https_base_url(Some("http://fans.example.org"), &h));
        assert!(!under_https_base_url(None, &h));
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert!(!under_https_base_url(Some("https://fans.example.org"), &h));
    }
}
