//! JSON bodies kept ready in memory with their ETag. Polled endpoints answer from here without
//! touching SQLite, and a matching `If-None-Match` gets a 304 with no body.

use std::sync::{Arc, RwLock};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use sha2::{Digest, Sha256};

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

    pub fn respond(&self, request_headers: &HeaderMap) -> Response {
        respond_json(&self.get(), request_headers)
    }
}

pub fn respond_json(body: &JsonBody, request_headers: &HeaderMap) -> Response {
    let cache_headers =
        [(header::ETAG, body.etag.clone()), (header::CACHE_CONTROL, HeaderValue::from_static("no-cache"))];
    if if_none_match_hits(request_headers, &body.etag) {
        return (StatusCode::NOT_MODIFIED, cache_headers).into_response();
    }
    let mut res = (cache_headers, Body::from(body.bytes.clone())).into_response();
    res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
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
