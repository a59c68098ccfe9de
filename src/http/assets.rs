//! The bundled UI (`ui/dist`, baked in by rust-embed). Hashed files under `assets/` are
//! immutable; every compressible file has `.br` and `.gz` twins made at build time, chosen here
//! by `Accept-Encoding`. The shell (`index.html`) is `no-cache` with an ETag.

use std::borrow::Cow;
use std::collections::HashMap;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

use crate::http::cached::{etag_of, if_none_match_hits};

#[derive(RustEmbed)]
#[folder = "ui/dist"]
struct UiDist;

pub struct Asset {
    identity: Cow<'static, [u8]>,
    br: Option<Cow<'static, [u8]>>,
    gzip: Option<Cow<'static, [u8]>>,
    content_type: HeaderValue,
    cache_control: HeaderValue,
    etag: HeaderValue,
}

pub struct Bundle {
    files: HashMap<String, Asset>,
    shell: Asset,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Encoding {
    Br,
    Gzip,
    Identity,
}

impl Bundle {
    pub fn load() -> Self {
        let mut files = HashMap::new();
        for path in UiDist::iter() {
            if path.ends_with(".br") || path.ends_with(".gz") {
                continue;
            }
            let Some(file) = UiDist::get(&path) else { continue };
            let immutable = path.starts_with("assets/");
            let cache = if immutable { "public, max-age=31536000, immutable" } else { "public, max-age=3600" };
            let asset = Asset {
                etag: etag_of(&file.data),
                identity: file.data,
                br: UiDist::get(&format!("{path}.br")).map(|f| f.data),
                gzip: UiDist::get(&format!("{path}.gz")).map(|f| f.data),
                content_type: content_type_for(&path),
                cache_control: HeaderValue::from_static(cache),
            };
            files.insert(path.to_string(), asset);
        }
        let mut shell = files.remove("index.html").expect("ui/dist/index.html is baked into the binary by build.rs");
        shell.cache_control = HeaderValue::from_static("no-cache");
        Self { files, shell }
    }

    /// A bundled file by its path without the leading slash (never the shell).
    pub fn file(&self, path: &str) -> Option<&Asset> {
        self.files.get(path)
    }

    /// An id of this build of the UI: changes whenever the bundle does.
    pub fn build_id(&self) -> String {
        self.shell.etag.to_str().unwrap_or_default().trim_matches('"')[..8].to_string()
    }

    pub fn shell_response(&self, status: StatusCode, request: &HeaderMap) -> Response {
        if status == StatusCode::OK && if_none_match_hits(request, &self.shell.etag) {
            return (
                StatusCode::NOT_MODIFIED,
                [(header::ETAG, self.shell.etag.clone()), (header::CACHE_CONTROL, self.shell.cache_control.clone())],
            )
                .into_response();
        }
        let mut res = self.shell.respond(request);
        *res.status_mut() = status;
        res
    }
}

impl Asset {
    pub fn respond(&self, request: &HeaderMap) -> Response {
        let (body, encoding) = match preferred_encoding(request) {
            Encoding::Br if self.br.is_some() => (self.br.clone().unwrap_or_default(), Encoding::Br),
            Encoding::Br | Encoding::Gzip if self.gzip.is_some() && accepts(request, "gzip") => {
                (self.gzip.clone().unwrap_or_default(), Encoding::Gzip)
            }
            _ => (self.identity.clone(), Encoding::Identity),
        };
        if if_none_match_hits(request, &self.etag) {
            return (StatusCode::NOT_MODIFIED, [(header::ETAG, self.etag.clone())]).into_response();
        }
        let mut res = Response::new(Body::from(body));
        let h = res.headers_mut();
        h.insert(header::CONTENT_TYPE, self.content_type.clone());
        h.insert(header::CACHE_CONTROL, self.cache_control.clone());
        h.insert(header::ETAG, self.etag.clone());
        if self.br.is_some() || self.gzip.is_some() {
            h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        }
        match encoding {
            Encoding::Br => {
                h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("br"));
            }
            Encoding::Gzip => {
                h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            }
            Encoding::Identity => {}
        }
        res
    }
}

fn content_type_for(path: &str) -> HeaderValue {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let text = mime.type_() == mime_guess::mime::TEXT
        || matches!(mime.subtype().as_str(), "javascript" | "json" | "svg" | "xml" | "manifest+json");
    let value = if text { format!("{mime}; charset=utf-8") } else { mime.to_string() };
    HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static("application/octet-stream"))
}

/// True when the client accepts `coding` with a non-zero quality.
fn accepts(request: &HeaderMap, coding: &str) -> bool {
    request.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(
        |item| {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or("").trim();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .filter_map(|q| q.trim().parse::<f32>().ok())
                .next()
                .unwrap_or(1.0);
            name.eq_ignore_ascii_case(coding) && q > 0.0
        },
    )
}

fn preferred_encoding(request: &HeaderMap) -> Encoding {
    if accepts(request, "br") {
        Encoding::Br
    } else if accepts(request, "gzip") {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ae(v: &'static str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_ENCODING, HeaderValue::from_static(v));
        h
    }

    #[test]
    fn negotiates_encoding() {
        assert_eq!(preferred_encoding(&ae("gzip, deflate, br")), Encoding::Br);
        assert_eq!(preferred_encoding(&ae("gzip, br;q=0")), Encoding::Gzip);
        assert_eq!(preferred_encoding(&ae("identity")), Encoding::Identity);
        assert_eq!(preferred_encoding(&HeaderMap::new()), Encoding::Identity);
    }

    #[test]
    fn text_types_carry_charset() {
        assert_eq!(content_type_for("assets/a.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type_for("favicon.svg"), "image/svg+xml; charset=utf-8");
        assert_eq!(content_type_for("x.png"), "image/png");
    }
}
