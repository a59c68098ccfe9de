//! JSON bodies kept ready in memory with their ETag. Polled endpoints answer from here without
//! touching SQLite, and a matching `If-None-Match` gets a 304 with no body.
//!
//! Each answer also says who may keep it ([`Caching`]): answers that are the same for everyone
//! may be kept for a few seconds by a shared cache in front of the site (a CDN, nginx), so the
//! polling of many open tabs reaches the origin about once per `s-maxage` per URL; everything
//! that depends on the caller stays private.

use std::sync::{Arc, RwLock};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The `Cache-Control` of an answer. Browsers always revalidate with the ETag (`max-age=0` or
/// `no-cache`); only shared caches keep a public answer, at most half the interval the app polls
/// it at, so a change reaches every tab at most one poll late. Chrome also honours
/// `stale-while-revalidate` in its own cache, so the app fetches with `cache: 'no-cache'`
/// (`ui/src/lib/api.ts`): a poll or a refetch after a change never gets the browser's stale copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caching(&'static str);

impl Caching {
    /// Depends on the caller (a cookie, an API key, an admin key, the address): browsers
    /// revalidate with the ETag, shared caches never keep it.
    pub const PRIVATE: Self = Self("private, no-cache");
    /// The banner, polled every 5 s. An ad's start or end reaches a shared cache's visitors at
    /// most 2 s late, plus the background refresh that stale-while-revalidate allows (without
    /// it, every request that arrives while a copy is being refreshed would go to the origin).
    pub const BANNER: Self = Self("public, max-age=0, s-maxage=2, stale-while-revalidate=1, stale-if-error=60");
    /// The public figures, polled every 5 s.
    pub const STATS: Self = Self("public, max-age=0, s-maxage=2, stale-while-revalidate=2, stale-if-error=60");
    /// The health answer, polled every 10 s. Never served stale when the origin fails
    /// (no stale-if-error): it is how pages learn that the site is down.
    pub const HEALTH: Self = Self("public, max-age=0, s-maxage=5, stale-while-revalidate=1");
    /// The badge monitor, polled every 30 s.
    pub const BADGE_MONITOR: Self =
        Self("public, max-age=0, s-maxage=15, stale-while-revalidate=15, stale-if-error=600");
    /// The summarised Discord updates, polled every 120 s.
    pub const UPDATES: Self = Self("public, max-age=0, s-maxage=60, stale-while-revalidate=60, stale-if-error=3600");
    /// Lists read once per page view (site settings, commands with their ratings, guides, the
    /// OpenAPI document): a new rating shows in the shared figures at most 10 s late.
    pub const CONTENT: Self = Self("public, max-age=0, s-maxage=10, stale-while-revalidate=30, stale-if-error=3600");

    /// A player's link-card picture: the same for everyone until the player is checked again
    /// (its ETag names what it shows). Link unfurlers fetch it once; a shared cache keeps it
    /// 10 minutes and serves it through an origin outage for a day.
    pub const PLAYER_CARD: Self =
        Self("public, max-age=0, s-maxage=600, stale-while-revalidate=600, stale-if-error=86400");

    /// Files that change only with a new release or never (robots.txt, the sitemap).
    pub const SITE_FILES: Self = Self("public, max-age=3600");
    /// Content-addressed files (the app's bundle, uploaded images): kept by everyone for a year.
    pub const IMMUTABLE: Self = Self("public, max-age=31536000, immutable");

    pub const fn as_str(self) -> &'static str {
        self.0
    }

    pub fn header(self) -> HeaderValue {
        HeaderValue::from_static(self.0)
    }

    /// Seconds a shared cache may keep the answer (none for private answers).
    pub fn s_maxage(self) -> Option<u32> {
        self.0.split(", ").find_map(|d| d.strip_prefix("s-maxage=")).and_then(|v| v.parse().ok())
    }
}

/// The `Cache-Control` of every answer that sets none: never stored anywhere.
pub const NOT_STORED: &str = "no-store";

/// The shared caching of each public operation of the OpenAPI document, by operation id. Every
/// other operation answers [`Caching::PRIVATE`] (ETag-carrying answers) or [`NOT_STORED`].
pub const SHARED_OPERATIONS: &[(&str, Caching)] = &[
    ("getActiveBanner", Caching::BANNER),
    ("getStats", Caching::STATS),
    ("getHealth", Caching::HEALTH),
    ("v1GetHealth", Caching::HEALTH),
    ("getBadgeMonitor", Caching::BADGE_MONITOR),
    ("getBadgeHistory", Caching::BADGE_MONITOR),
    ("getAllBadgeHistory", Caching::BADGE_MONITOR),
    ("getDiscordUpdates", Caching::UPDATES),
    ("getSite", Caching::CONTENT),
    ("listCommands", Caching::CONTENT),
    ("listPopularCommands", Caching::CONTENT),
    ("listGuides", Caching::CONTENT),
    ("getOpenApiDocument", Caching::CONTENT),
    ("getRobots", Caching::SITE_FILES),
    ("getSitemap", Caching::SITE_FILES),
    ("getUpload", Caching::IMMUTABLE),
    ("getPlayerCardPicture", Caching::PLAYER_CARD),
];

pub struct JsonBody {
    pub bytes: Bytes,
    pub etag: HeaderValue,
}

impl JsonBody {
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        let etag = etag_of(&bytes);
        Self { bytes: Bytes::from(bytes), etag }
    }
}

pub struct CachedJson {
    current: RwLock<Arc<JsonBody>>,
}

pub fn etag_of(bytes: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(bytes);
    HeaderValue::from_str(&format!("\"{}\"", hex::encode(&digest[..12]))).expect("hex is a valid header")
}

fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("API types always serialize")
}

impl CachedJson {
    pub fn new<T: Serialize>(value: &T) -> Self {
        Self { current: RwLock::new(Arc::new(JsonBody::from_bytes(to_json(value)))) }
    }

    /// Replaces the body; returns whether its bytes changed.
    pub fn set<T: Serialize>(&self, value: &T) -> bool {
        let next = JsonBody::from_bytes(to_json(value));
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        if current.etag == next.etag {
            return false;
        }
        *current = Arc::new(next);
        true
    }

    pub fn get(&self) -> Arc<JsonBody> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn respond(&self, request_headers: &HeaderMap, caching: Caching) -> Response {
        respond_json(&self.get(), request_headers, caching)
    }
}

pub fn respond_json(body: &JsonBody, request_headers: &HeaderMap, caching: Caching) -> Response {
    respond_bytes(body, request_headers, caching, "application/json")
}

/// A body of any type with its ETag and `Cache-Control`; 304 when `If-None-Match` names it.
pub fn respond_bytes(
    body: &JsonBody,
    request_headers: &HeaderMap,
    caching: Caching,
    content_type: &'static str,
) -> Response {
    let cache_headers = [(header::ETAG, body.etag.clone()), (header::CACHE_CONTROL, caching.header())];
    if if_none_match_hits(request_headers, &body.etag) {
        return (StatusCode::NOT_MODIFIED, cache_headers).into_response();
    }
    let mut res = (cache_headers, Body::from(body.bytes.clone())).into_response();
    res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    res
}

/// True when `If-None-Match` lists this ETag (weak or strong) or `*`.
pub fn if_none_match_hits(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let Some(value) = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let ours = etag.to_str().unwrap_or_default();
    value.split(',').map(str::trim).any(|tag| tag == "*" || tag.trim_start_matches("W/") == ours)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_answers_are_public_and_kept_at_most_half_their_poll_interval() {
        // The app's poll intervals, read from its source so that a faster poll breaks this test.
        let source = include_str!("../../ui/src/lib/queryClient.ts");
        let poll_secs = |name: &str| -> Option<u32> {
            let after = source.split_once(&format!("  {name}: "))?.1;
            let ms: String =
                after.chars().take_while(|c| c.is_ascii_digit() || *c == '_').filter(|c| *c != '_').collect();
            Some(ms.parse::<u32>().ok()? / 1000)
        };
        let polled = [
            (Caching::BANNER, Some("activeBanner")),
            (Caching::STATS, Some("stats")),
            (Caching::HEALTH, Some("health")),
            (Caching::BADGE_MONITOR, Some("badgeMonitor")),
            (Caching::UPDATES, Some("updates")),
            (Caching::CONTENT, None),
        ];
        for (policy, poll_name) in polled {
            let poll = poll_name.map(|name| poll_secs(name).unwrap_or_else(|| panic!("POLL.{name} in queryClient.ts")));
            let value = policy.as_str();
            assert!(value.starts_with("public, max-age=0, "), "browsers revalidate polled and listed answers: {value}");
            assert!(!value.contains("no-cache") && !value.contains("private"), "{value}");
            let kept = policy.s_maxage().expect("a shared policy names its s-maxage");
            if let Some(poll) = poll {
                assert!(kept * 2 <= poll, "{value}: kept longer than half the poll interval of {poll} s");
            }
            assert!(policy.header().to_str().is_ok());
            // Under load a copy is refreshed once, in the background, not by every request that
            // arrives while it is being fetched.
            assert!(value.contains("stale-while-revalidate="), "{value}");
        }
        assert_eq!(Caching::PRIVATE.s_maxage(), None);
        // The health answer is how pages notice an outage: never served stale on errors.
        assert!(!Caching::HEALTH.as_str().contains("stale-if-error"));
    }

    #[test]
    fn set_reports_changes_only() {
        let c = CachedJson::new(&serde_json::json!({"a": 1}));
        assert!(!c.set(&serde_json::json!({"a": 1})));
        assert!(c.set(&serde_json::json!({"a": 2})));
    }

    #[test]
    fn if_none_match_accepts_lists_and_weak_tags() {
        let tag = etag_of(b"x");
        let mut h = HeaderMap::new();
        h.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_str(&format!("\"zz\", W/{}", tag.to_str().unwrap())).unwrap(),
        );
        assert!(if_none_match_hits(&h, &tag));
        h.insert(header::IF_NONE_MATCH, HeaderValue::from_static("\"other\""));
        assert!(!if_none_match_hits(&h, &tag));
    }
}
