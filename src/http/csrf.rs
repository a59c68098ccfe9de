//! Cookie-authenticated requests that change state must come from this site's own pages:
//! `Sec-Fetch-Site: same-origin`, or an `Origin` whose host is the `Host` header.

use axum::extract::Request;
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Cookies that authenticate (the privacy cookie does not), also under their `__Host-` names.
pub const AUTH_COOKIES: [&str; 4] = ["fanhub_session", "fanhub_admin", "fanhub_owner", "fanhub_sign_in"];

pub async fn same_origin_writes(req: Request, next: Next) -> Response {
    let changes_state = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes_state && carries_auth_cookie(req.headers()) && !is_same_origin(req.headers()) {
        return ApiError::forbidden("Cross-site request refused.")
            .with_message("Requests that use your sign-in must come from this site's own pages.")
            .into_response();
    }
    next.run(req).await
}

pub fn carries_auth_cookie(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.split_once('=').map(|(k, _)| k.trim()))
        .map(|name| name.strip_prefix(super::cookies::HOST_PREFIX).unwrap_or(name))
        .any(|name| AUTH_COOKIES.contains(&name))
}

pub fn is_same_origin(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        return site == "same-origin";
    }
    let (Some(origin), Some(host)) = (
        headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()),
        headers.get(header::HOST).and_then(|v| v.to_str().ok()),
    ) else {
        return false;
    };
    origin
        .split_once("://")
        .map(|(_, authority)| authority.trim_end_matches('/').eq_ignore_ascii_case(host))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn same_origin_rules() {
        assert!(is_same_origin(&with(&[("sec-fetch-site", "same-origin")])));
        assert!(!is_same_origin(&with(&[("sec-fetch-site", "cross-site"), ("origin", "http://a"), ("host", "a")])));
        assert!(is_same_origin(&with(&[("origin", "https://fans.example:8443"), ("host", "fans.example:8443")])));
        assert!(!is_same_origin(&with(&[("origin", "https://evil.example"), ("host", "fans.example")])));
        assert!(!is_same_origin(&with(&[("origin", "null"), ("host", "fans.example")])));
        assert!(!is_same_origin(&with(&[("host", "fans.example")])));
    }

    #[test]
    fn only_auth_cookies_count() {
        assert!(carries_auth_cookie(&with(&[("cookie", "fanhub_privacy=x; fanhub_session=abc")])));
        assert!(carries_auth_cookie(&with(&[("cookie", "__Host-fanhub_admin=abc")])));
        assert!(!carries_auth_cookie(&with(&[("cookie", "fanhub_privacy=x")])));
    }
}
