//! `/sitemap.xml` (the indexable pages of site.toml's `[[pages]]`) and `/robots.txt` (which
//! points at it). Both need absolute URLs, so they come from the server, not from `assets/`.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::head::attr;
use crate::error::ApiError;
use crate::http::client_ip::ClientIp;
use crate::http::origin;
use crate::site::SiteSettings;

pub fn router<S: Clone + Send + Sync + 'static>(site: Arc<SiteSettings>) -> Router<S> {
    Router::new().route("/sitemap.xml", get(sitemap)).route("/robots.txt", get(robots)).with_state(site)
}

fn request_origin(site: &SiteSettings, req: &Request) -> Option<String> {
    origin::of_request(site.base_url.as_deref(), req.headers(), req.extensions().get::<ClientIp>())
}

/// The site's indexable pages for search engines, with absolute URLs.
#[utoipa::path(get, path = "/sitemap.xml", tag = "site", operation_id = "getSitemap",
    responses((status = 200, description = "Sitemap XML", content_type = "application/xml", body = String),
        (status = 400, description = "The Host header is not a host name")))]
pub(crate) async fn sitemap(State(site): State<Arc<SiteSettings>>, req: Request) -> Response {
    let Some(origin) = request_origin(&site, &req) else {
        return ApiError::bad_request("The Host header is not a host name.").into_response();
    };
    text_response("application/xml; charset=utf-8", sitemap_xml(&site, &origin))
}

/// Crawler rules: everything but the API, and where the sitemap is.
#[utoipa::path(get, path = "/robots.txt", tag = "site", operation_id = "getRobots",
    responses((status = 200, description = "robots.txt", content_type = "text/plain", body = String)))]
pub(crate) async fn robots(State(site): State<Arc<SiteSettings>>, req: Request) -> Response {
    text_response("text/plain; charset=utf-8", robots_txt(request_origin(&site, &req).as_deref()))
}

fn text_response(content_type: &'static str, body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, crate::http::cached::Caching::SITE_FILES.header()),
        ],
        body,
    )
        .into_response()
}

pub fn sitemap_xml(site: &SiteSettings, origin: &str) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for page in site.pages.iter().filter(|p| p.index) {
        out.push_str(&format!("  <url><loc>{}</loc></url>\n", attr(&format!("{origin}{}", page.path))));
    }
    out.push_str("</urlset>\n");
    out
}

/// Crawlers may read every page (pages not meant for search carry `noindex`, which a crawler
/// only sees when allowed in); the API is off limits but for the players' card pictures, which
/// link unfurlers that follow robots.txt (Twitterbot) must be allowed to fetch. The longer rule
/// wins, and it comes first for crawlers that take the first match.
pub fn robots_txt(origin: Option<&str>) -> String {
    let mut out = String::from("User-agent: *\nAllow: /api/players/\nDisallow: /api/\n");
    if let Some(origin) = origin {
        out.push_str(&format!("\nSitemap: {origin}/sitemap.xml\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemap_lists_indexable_pages_only() {
        let site = crate::site::load(None).unwrap();
        let xml = sitemap_xml(&site, "https://fans.example.org");
        assert!(xml.contains("<loc>https://fans.example.org/</loc>"));
        assert!(xml.contains("<loc>https://fans.example.org/commands</loc>"));
        assert!(!xml.contains("/admin"), "{xml}");
        assert!(!xml.contains("/login"), "{xml}");
        assert_eq!(xml.matches("<url>").count(), site.pages.iter().filter(|p| p.index).count());
    }

    #[test]
    fn robots_points_at_the_sitemap() {
        assert!(robots_txt(Some("https://x.org")).contains("\nSitemap: https://x.org/sitemap.xml\n"));
        assert!(!robots_txt(None).contains("Sitemap"));
        assert!(robots_txt(None).starts_with("User-agent: *\nAllow: /api/players/\nDisallow: /api/\n"));
    }
}
