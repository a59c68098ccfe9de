//! The bundled UI (`ui/dist`, baked in by rust-embed). Hashed files under `assets/` are
//! immutable; every compressible file has `.br` and `.gz` twins made at build time, chosen here
//! by `Accept-Encoding`. The shell template (`index.html`) and Vite's manifest are not served
//! as files: `crate::shell` builds each route's shell from them.

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
    template: Asset,
    manifest: Option<serde_json::Value>,
    /// Page module name -> its first screen with site-setting tokens (`ui/scripts/prerender.mjs`).
    first_screens: HashMap<String, String>,
}

/// Where the UI build writes the pages' first screens; read by the shell, not served.
const FIRST_SCREENS: &str = "prerender/";

/// Vite's manifest (`build.manifest` in ui/vite.config.ts): which chunk holds which page.
const MANIFEST: &str = "vite-manifest.json";

/// The bundled link-card image. Its URL carries its hash (`?v=`), so it is cached for a year.
pub const SOCIAL_IMAGE: &str = "social-card.png";

const IMMUTABLE: &str = crate::http::cached::Caching::IMMUTABLE.as_str();

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
            let immutable = path.starts_with("assets/") || path == SOCIAL_IMAGE;
            let cache = if immutable { IMMUTABLE } else { "public, max-age=3600" };
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
        let template = files.remove("index.html").expect("ui/dist/index.html is baked into the binary by build.rs");
        let manifest = files.remove(MANIFEST).and_then(|m| serde_json::from_slice(&m.identity).ok());
        let screen_paths: Vec<String> = files.keys().filter(|p| p.starts_with(FIRST_SCREENS)).cloned().collect();
        let first_screens = screen_paths
            .into_iter()
            .filter_map(|path| {
                let asset = files.remove(&path)?;
                let page = path.strip_prefix(FIRST_SCREENS)?.strip_suffix(".html")?.to_string();
                Some((page, String::from_utf8(asset.identity.into_owned()).ok()?))
            })
            .collect();
        Self { files, template, manifest, first_screens }
    }

    /// The shell template: `ui/index.html` as Vite built it.
    pub fn template(&self) -> &str {
        std::str::from_utf8(&self.template.identity).unwrap_or_default()
    }

    /// Vite's manifest, when the build wrote one.
    pub fn manifest(&self) -> Option<&serde_json::Value> {
        self.manifest.as_ref()
    }

    /// The bundled social image's path with its version, e.g. `/social-card.png?v=1a2b3c4d`.
    pub fn social_image_path(&self) -> Option<String> {
        let image = self.files.get(SOCIAL_IMAGE)?;
        Some(format!("/{SOCIAL_IMAGE}?v={}", &image.etag.to_str().unwrap_or_default().trim_matches('"')[..8]))
    }

    /// The first screen of a page module (e.g. `Home`), with its site-setting tokens, when the
    /// UI build rendered one.
    pub fn first_screen(&self, page: &str) -> Option<&str> {
        self.first_screens.get(page).map(String::as_str)
    }

    /// A bundled file by its path without the leading slash (never the shell).
    pub fn file(&self, path: &str) -> Option<&Asset> {
        self.files.get(path)
    }

    /// An id of this build of the UI: changes whenever the bundle does.
    pub fn build_id(&self) -> String {
        self.template.etag.to_str().unwrap_or_default().trim_matches('"')[..8].to_string()
    }
}

/// Brotli quality for pages compressed at run time (once per shell variant): close to the
/// best ratio at a fraction of quality 11's time.
const RUNTIME_BROTLI_QUALITY: u32 = 9;

impl Asset {
    /// An HTML page made at run time: `no-cache` with its ETag, brotli-compressed when `compress`.
    pub fn html(body: String, compress: bool) -> Self {
        let bytes = body.into_bytes();
        let br = compress.then(|| {
            let mut out = Vec::with_capacity(bytes.len() / 3);
            let params = brotli::enc::BrotliEncoderParams {
                quality: RUNTIME_BROTLI_QUALITY as i32,
                size_hint: bytes.len(),
                ..Default::default()
            };
            let _ = brotli::BrotliCompress(&mut &bytes[..], &mut out, &params);
            Cow::Owned(out)
        });
        Self {
            etag: etag_of(&bytes),
            identity: Cow::Owned(bytes),
            br,
            gzip: None,
            content_type: HeaderValue::from_static("text/html; charset=utf-8"),
            cache_control: HeaderValue::from_static("no-cache"),
        }
    }

    /// The file's bytes as built (not compressed).
    pub fn bytes(&self) -> &[u8] {
        &self.identity
    }

    pub fn etag(&self) -> &HeaderValue {
        &self.etag
    }

    pub fn respond(&self, request: &HeaderMap) -> Response {
        self.respond_with_status(StatusCode::OK, request)
    }

    /// Answers with `status`; a matching `If-None-Match` gets a 304 only when `status` is 200.
    pub fn respond_with_status(&self, status: StatusCode, request: &HeaderMap) -> Response {
        let (body, encoding) = match preferred_encoding(request) {
            Encoding::Br if self.br.is_some() => (self.br.clone().unwrap_or_default(), Encoding::Br),
            Encoding::Br | Encoding::Gzip if self.gzip.is_some() && accepts(request, "gzip") => {
                (self.gzip.clone().unwrap_or_default(), Encoding::Gzip)
            }
            _ => (self.identity.clone(), Encoding::Identity),
        };
        if status == StatusCode::OK && if_none_match_hits(request, &self.etag) {
            return (
                StatusCode::NOT_MODIFIED,
                [(header::ETAG, self.etag.clone()), (header::CACHE_CONTROL, self.cache_control.clone())],
            )
                .into_response();
        }
        let mut res = Response::new(Body::from(body));
        *res.status_mut() = status;
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

    #[test]
    fn runtime_html_is_compressed_and_tagged() {
        let page = Asset::html("<p>hello</p>".repeat(200), true);
        let br = page.br.as_ref().unwrap();
        assert!(br.len() < page.identity.len() / 10);
        let mut back = Vec::new();
        brotli::BrotliDecompress(&mut &br[..], &mut back).unwrap();
        assert_eq!(back, page.identity.as_ref());
        let res = page.respond_with_status(StatusCode::NOT_FOUND, &ae("br"));
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
        assert_eq!(res.headers()[header::CONTENT_ENCODING], "br");
        let mut h = HeaderMap::new();
        h.insert(header::IF_NONE_MATCH, page.etag().clone());
        assert_eq!(page.respond_with_status(StatusCode::OK, &h).status(), StatusCode::NOT_MODIFIED);
        assert_eq!(page.respond_with_status(StatusCode::NOT_FOUND, &h).status(), StatusCode::NOT_FOUND);
        assert!(Asset::html("x".into(), false).br.is_none());
    }
}
