//! The app shell per route: `ui/index.html` as Vite built it, with a head written for the
//! route (title, description, canonical URL, link-card tags, preload hints) and the public site
//! settings as a JSON data block, so link previews work without JavaScript and the first
//! screen paints without waiting for `/api/site`. Also `/sitemap.xml` and `/robots.txt`.
//!
//! Each variant (route x origin) is rendered and brotli-compressed once, then served from
//! memory with its own ETag. With `base_url` set there is one origin; without it the origin
//! comes from the request's `Host`, so at most `MAX_ORIGINS` origins are kept and any further
//! one is rendered per request, uncompressed. A page about one command, guide or player
//! (`cards`) is a variant of its own, kept the same way but at most `MAX_SUBJECT_VARIANTS` of
//! them (the oldest goes first), so links by the thousand cannot grow the memory.

pub mod cards;
pub(crate) mod first_screen;
pub mod head;
pub(crate) mod picture;
pub mod pictures;
pub(crate) mod seo;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, RwLock};

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use crate::http::assets::{Asset, Bundle};
use crate::http::cached::CachedJson;
use crate::http::spa::{ROUTES, Route};
use crate::site::{SiteSettings, document_title};
use cards::Subject;

pub use seo::router;

/// Where the head goes in `ui/index.html`.
const HEAD_MARKER: &str = "<!--fanhub:head-->";
/// The app's root element in `ui/index.html`: a page's first screen goes inside it.
const APP_ROOT: &str = r#"<div id="app"></div>"#;

/// The title of the not-found page (the app's 404 screen shows the same heading).
pub const NOT_FOUND_TITLE: &str = "404 Page Not Found";

const MAX_ORIGINS: usize = 16;
/// Pages about one command, guide or player kept rendered (about 30 KB each with their brotli copy).
const MAX_SUBJECT_VARIANTS: usize = 256;

pub struct Shells {
    before: String,
    after: String,
    /// Per route of `ROUTES` (same index): the chunks to modulepreload.
    chunks: Vec<Vec<String>>,
    /// Per route of `ROUTES` (same index): its first screen with site-setting tokens, if built.
    first_screens: Vec<Option<String>>,
    /// The app's stylesheet link and the stylesheet itself: a shell with a first screen carries it
    /// inline, so the first paint waits for no other request.
    inline_style: Option<(String, String)>,
    /// The app's entry script and its preloads, which a shell with a first screen replaces by an
    /// inline loader that starts them once the first screen is painted.
    deferred_entry: Option<DeferredEntry>,
    content_security_policy: HeaderValue,
    /// The bundled social image's path (`/social-card.png?v=...`).
    bundled_image: Option<String>,
    cache: RwLock<Cache>,
}

#[derive(Default)]
struct Cache {
    /// The `/api/site` body the variants embed; a change empties the cache.
    site_etag: Option<HeaderValue>,
    /// (route index, or None for not-found; origin) -> rendered shell.
    variants: HashMap<(Option<usize>, Option<String>), Arc<Asset>>,
    origins: Vec<Option<String>>,
    /// (route index, subject key, origin) -> rendered shell, and their keys oldest first.
    subjects: HashMap<SubjectVariant, Arc<Asset>>,
    subject_order: VecDeque<SubjectVariant>,
}

type SubjectVariant = (usize, String, Option<String>);

impl Shells {
    pub fn new(bundle: &Bundle) -> Self {
        let template = bundle.template();
        let (before, after) = match template.split_once(HEAD_MARKER) {
            Some((b, a)) => (b.to_string(), a.to_string()),
            None => match template.find("</head>") {
                Some(i) => (template[..i].to_string(), template[i..].to_string()),
                None => (String::new(), template.to_string()),
            },
        };
        let chunks = ROUTES.iter().map(|r| page_chunks(bundle.manifest(), r.page)).collect();
        let first_screens = ROUTES.iter().map(|r| bundle.first_screen(r.page).map(str::to_string)).collect();
        let inline_style = stylesheet(bundle, &after);
        let deferred_entry = DeferredEntry::find(&after);
        let style_hash = inline_style.as_ref().map_or(String::new(), |(_, css)| csp_hash(css));
        let mut script_hash = deferred_entry.as_ref().map_or(String::new(), |e| csp_hash(&e.loader));
        // The template's own inline scripts (the theme, set before the first paint).
        script_hash.extend(inline_scripts(&before).into_iter().map(csp_hash));
        Self {
            before,
            after,
            chunks,
            first_screens,
            inline_style,
            deferred_entry,
            content_security_policy: crate::http::middleware::content_security_policy(&script_hash, &style_hash),
            bundled_image: bundle.social_image_path(),
            cache: RwLock::new(Cache::default()),
        }
    }

    /// The Content-Security-Policy of every answer (it allows the inlined stylesheet by its hash).
    pub fn content_security_policy(&self) -> &HeaderValue {
        &self.content_security_policy
    }

    /// The shell for `route` (`None`: the not-found page, answered with 404), with `site` and its
    /// public JSON (`site_json`, the `/api/site` body) embedded; about `subject` when the address
    /// names one (`cards::LinkCards::subject`).
    pub fn respond(
        &self,
        site: &SiteSettings,
        site_json: &CachedJson,
        route: Option<&Route>,
        subject: Option<&Subject>,
        origin: Option<String>,
        request: &HeaderMap,
    ) -> Response {
        let index = route.and_then(|r| ROUTES.iter().position(|x| x.path == r.path));
        let status = if index.is_some() { StatusCode::OK } else { StatusCode::NOT_FOUND };
        // The not-found shell names no URL, so one variant serves every origin.
        let origin = if index.is_some() { origin } else { None };
        match (index, subject) {
            (Some(index), Some(subject)) => self.subject_variant(site, site_json, index, subject, origin),
            _ => self.variant(site, site_json, index, origin),
        }
        .respond_with_status(status, request)
    }

    /// The cached shell of a page about `subject`, like `variant` but bounded by count.
    fn subject_variant(
        &self,
        site: &SiteSettings,
        site_json: &CachedJson,
        index: usize,
        subject: &Subject,
        origin: Option<String>,
    ) -> Arc<Asset> {
        let site_body = site_json.get();
        let key = (index, subject.key.clone(), origin);
        {
            let cache = self.cache.read().unwrap_or_else(|p| p.into_inner());
            if cache.site_etag.as_ref() == Some(&site_body.etag)
                && let Some(found) = cache.subjects.get(&key)
            {
                return found.clone();
            }
        }
        let html = self.render(site, &site_body.bytes, Some(index), Some(subject), key.2.as_deref());
        let mut cache = self.cache.write().unwrap_or_else(|p| p.into_inner());
        if cache.site_etag.as_ref() != Some(&site_body.etag) {
            *cache = Cache { site_etag: Some(site_body.etag.clone()), ..Default::default() };
        }
        if let Some(found) = cache.subjects.get(&key) {
            return found.clone();
        }
        if !cache.origins.contains(&key.2) && cache.origins.len() >= MAX_ORIGINS {
            return Arc::new(Asset::html(html, false));
        }
        if !cache.origins.contains(&key.2) {
            cache.origins.push(key.2.clone());
        }
        let asset = Arc::new(Asset::html(html, true));
        cache.subjects.insert(key.clone(), asset.clone());
        cache.subject_order.push_back(key);
        while cache.subject_order.len() > MAX_SUBJECT_VARIANTS {
            if let Some(oldest) = cache.subject_order.pop_front() {
                cache.subjects.remove(&oldest);
            }
        }
        asset
    }

    /// How many pages about one subject are kept rendered.
    pub fn subject_variants(&self) -> usize {
        self.cache.read().unwrap_or_else(|p| p.into_inner()).subjects.len()
    }

    fn variant(
        &self,
        site: &SiteSettings,
        site_json: &CachedJson,
        index: Option<usize>,
        origin: Option<String>,
    ) -> Arc<Asset> {
        let site_body = site_json.get();
        let key = (index, origin);
        {
            let cache = self.cache.read().unwrap_or_else(|p| p.into_inner());
            if cache.site_etag.as_ref() == Some(&site_body.etag)
                && let Some(found) = cache.variants.get(&key)
            {
                return found.clone();
            }
        }
        let mut cache = self.cache.write().unwrap_or_else(|p| p.into_inner());
        if cache.site_etag.as_ref() != Some(&site_body.etag) {
            *cache = Cache { site_etag: Some(site_body.etag.clone()), ..Default::default() };
        }
        if let Some(found) = cache.variants.get(&key) {
            return found.clone();
        }
        let html = self.render(site, &site_body.bytes, key.0, None, key.1.as_deref());
        let known_origin = cache.origins.contains(&key.1);
        if !known_origin && cache.origins.len() >= MAX_ORIGINS {
            return Arc::new(Asset::html(html, false));
        }
        if !known_origin {
            cache.origins.push(key.1.clone());
        }
        let asset = Arc::new(Asset::html(html, true));
        cache.variants.insert(key, asset.clone());
        asset
    }

    fn render(
        &self,
        site: &SiteSettings,
        site_json: &[u8],
        index: Option<usize>,
        subject: Option<&Subject>,
        origin: Option<&str>,
    ) -> String {
        let page = index.and_then(|i| site.pages.iter().find(|p| p.path == ROUTES[i].path));
        let subject = subject.filter(|_| page.is_some());
        let not_found_title = document_title(NOT_FOUND_TITLE, &site.name);
        let subject_title = subject.map(|s| document_title(&s.title, &site.name));
        let canonical = match (page, subject, origin) {
            (Some(_), Some(s), Some(o)) => Some(format!("{o}{}", s.path)),
            (Some(p), None, Some(o)) => Some(format!("{o}{}", p.path)),
            _ => None,
        };
        let own_image = subject.and_then(|s| s.image.as_deref());
        let image = match (own_image, &site.social_image, &self.bundled_image, origin) {
            (Some(path), _, _, Some(o)) => Some(format!("{o}{path}")),
            (_, Some(url), _, _) => Some(url.clone()),
            (_, None, Some(path), Some(o)) => Some(format!("{o}{path}")),
            _ => None,
        };
        // A picture of its own shows the subject's title; the site's shows the site's name.
        let image_alt = match (subject, own_image.is_some() && origin.is_some()) {
            (Some(s), true) => s.title.as_str(),
            _ => site.name.as_str(),
        };
        let no_chunks = Vec::new();
        let first_screen = index.and_then(|i| self.first_screen(i, site_json));
        // A painted first screen wants the link to itself (see `DeferredEntry`).
        let preload = index.filter(|_| first_screen.is_none() || self.deferred_entry.is_none());
        let head = head::Head {
            document_title: subject_title
                .as_deref()
                .or(page.map(|p| p.document_title.as_str()))
                .unwrap_or(&not_found_title),
            card_title: subject.map(|s| s.title.as_str()).or(page.map(|p| p.title.as_str())).unwrap_or(NOT_FOUND_TITLE),
            description: subject
                .map(|s| s.description.as_str())
                .or(page.map(|p| p.description.as_str()))
                .unwrap_or(&site.description),
            site_name: &site.name,
            canonical: canonical.as_deref(),
            image: image.as_deref(),
            image_alt,
            index: page.is_some_and(|p| p.index) && subject.is_none_or(|s| s.index),
            module_preloads: preload.map_or(&no_chunks, |i| &self.chunks[i]),
            fetch_preloads: preload.map_or(&[], |i| ROUTES[i].first_calls),
            site_json,
        };
        let head = head::render(&head);
        let mut out = String::with_capacity(self.before.len() + head.len() + self.after.len() + 16 * 1024);
        out.push_str(&self.before);
        out.push_str(&head);
        match first_screen {
            Some(screen) => {
                let mut after = self.after.replacen(APP_ROOT, &format!(r#"<div id="app">{screen}</div>"#), 1);
                if let Some((link, css)) = &self.inline_style {
                    after = after.replacen(link, &format!("<style>{css}</style>"), 1);
                }
                if let Some(entry) = &self.deferred_entry {
                    after = entry.apply(&after);
                }
                out.push_str(&after);
            }
            None => out.push_str(&self.after),
        }
        out
    }

    /// The route's first screen filled with the site's settings, when the build rendered one.
    fn first_screen(&self, index: usize, site_json: &[u8]) -> Option<String> {
        let template = self.first_screens[index].as_deref()?;
        let filled = serde_json::from_slice(site_json)
            .map_err(|e| e.to_string())
            .and_then(|site| first_screen::fill(template, &site));
        match filled {
            Ok(html) => Some(html),
            Err(e) => {
                tracing::warn!("{} is served without its first screen: {e}", ROUTES[index].path);
                None
            }
        }
    }
}

/// ` 'sha256-…'`: a CSP source allowing the inline element with this text.
fn csp_hash(text: &str) -> String {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    format!(" 'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes())))
}

/// The text of each `<script>` without attributes in `html` (the template's inline scripts).
fn inline_scripts(html: &str) -> Vec<&str> {
    const OPEN: &str = "<script>";
    html.match_indices(OPEN)
        .filter_map(|(i, _)| {
            let text = &html[i + OPEN.len()..];
            Some(&text[..text.find("</script>")?])
        })
        .collect()
}

/// The app's entry script, started after the first paint in shells that carry a first screen.
/// Run as the page parses, it would download, evaluate and hydrate before the browser paints what
/// the HTML already holds; and preloaded with the page, the scripts share a slow link with the
/// HTML itself. Measured with Lighthouse's phone preset on the home route: entry and preloads as
/// built, first paint 1.4 s and LCP 1.6 s; preloads dropped, 0.9 s and 1.3 s; no script before
/// the paint, 0.8 s and 0.9 s. So these shells carry no preload hints and start the entry, with
/// its imports preloaded, once the browser reports the first contentful paint.
struct DeferredEntry {
    /// `<script type="module" crossorigin src="/assets/index-….js"></script>` as Vite wrote it.
    tag: String,
    /// The entry's imports, `<link rel="modulepreload" crossorigin href="…">` as Vite wrote them.
    import_tags: Vec<String>,
    /// The inline loader: on the first contentful paint (a frame later without paint timing, at
    /// the latest after 3 s, e.g. in a background tab), once.
    loader: String,
}

impl DeferredEntry {
    fn find(after_head: &str) -> Option<Self> {
        const START: &str = "<script type=\"module\" crossorigin src=\"";
        const PRELOAD: &str = "<link rel=\"modulepreload\" crossorigin href=\"";
        let start = after_head.find(START)?;
        let end = start + after_head[start..].find("</script>")? + "</script>".len();
        let tag = &after_head[start..end];
        let src = tag[START.len()..].split('"').next()?;
        let mut import_tags = Vec::new();
        let mut imports = Vec::new();
        for (i, _) in after_head.match_indices(PRELOAD) {
            let link = &after_head[i..i + after_head[i..].find('>')? + 1];
            import_tags.push(link.to_string());
            imports.push(link[PRELOAD.len()..].split('"').next()?);
        }
        let plain = |path: &str| {
            path.starts_with("/assets/") && path.chars().all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
        };
        if !plain(src) || !imports.iter().all(|i| plain(i)) {
            return None;
        }
        let imports = imports.iter().map(|i| format!("\"{i}\"")).collect::<Vec<_>>().join(",");
        let loader = format!(
            "(function(){{var started=0;function start(){{if(started)return;started=1;var h=document.head;\
             [{imports}].forEach(function(u){{var l=document.createElement(\"link\");l.rel=\"modulepreload\";\
             l.crossOrigin=\"\";l.href=u;h.appendChild(l)}});var s=document.createElement(\"script\");\
             s.type=\"module\";s.crossOrigin=\"\";s.src=\"{src}\";h.appendChild(s)}}\
             function painted(list){{if(list.getEntries().some(function(e){{return e.name===\"first-contentful-paint\"}}))\
             setTimeout(start)}}var P=window.PerformanceObserver;\
             if(P&&P.supportedEntryTypes&&P.supportedEntryTypes.indexOf(\"paint\")>=0)\
             new P(painted).observe({{type:\"paint\",buffered:true}});\
             else requestAnimationFrame(function(){{setTimeout(start)}});setTimeout(start,3000)}})()"
        );
        Some(Self { tag: tag.to_string(), import_tags, loader })
    }

    /// `after_head` with the entry and its preloads replaced by the loader.
    fn apply(&self, after_head: &str) -> String {
        let mut out = after_head.replacen(&self.tag, &format!("<script>{}</script>", self.loader), 1);
        for link in &self.import_tags {
            out = out.replacen(link, "", 1);
        }
        out
    }
}

/// The app's one stylesheet link in the shell template (after the head marker) and its text,
/// when there is exactly one and it can sit in a `<style>` element.
fn stylesheet(bundle: &Bundle, after_head: &str) -> Option<(String, String)> {
    const START: &str = "<link rel=\"stylesheet\"";
    let mut links =
        after_head.match_indices(START).filter_map(|(i, _)| Some(&after_head[i..i + after_head[i..].find('>')? + 1]));
    let link = links.next()?;
    if links.next().is_some() {
        return None;
    }
    let href = link.split("href=\"").nth(1)?.split('"').next()?;
    let css = std::str::from_utf8(bundle.file(href.strip_prefix('/')?)?.bytes()).ok()?;
    (!css.contains("</")).then(|| (link.to_string(), css.to_string()))
}

/// The files of a page's lazy chunk and of the chunks it imports, from Vite's manifest
/// (`src/pages/<page>.tsx`), leaving out what the entry loads anyway; empty when the page is
/// part of the entry chunk.
fn page_chunks(manifest: Option<&serde_json::Value>, page: &str) -> Vec<String> {
    let Some(manifest) = manifest.and_then(|m| m.as_object()) else { return Vec::new() };
    let entries = manifest.iter().filter(|(_, c)| c["isEntry"].as_bool() == Some(true)).map(|(k, _)| k.clone());
    let loaded_by_entry = static_closure(manifest, entries.collect());
    static_closure(manifest, vec![format!("src/pages/{page}.tsx")])
        .into_iter()
        .filter(|key| !loaded_by_entry.contains(key))
        .filter_map(|key| manifest[&key]["file"].as_str().map(|f| format!("/{f}")))
        .collect()
}

/// The manifest keys of `start` and everything they import statically, in visiting order.
fn static_closure(manifest: &serde_json::Map<String, serde_json::Value>, start: Vec<String>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut todo = start;
    todo.reverse();
    while let Some(key) = todo.pop() {
        if seen.contains(&key) || !manifest.contains_key(&key) {
            continue;
        }
        let imports = manifest[&key]["imports"].as_array().into_iter().flatten().filter_map(|i| i.as_str());
        todo.extend(imports.map(str::to_string).collect::<Vec<_>>().into_iter().rev());
        seen.push(key);
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_and_its_preloads_give_way_to_the_loader_and_only_plain_asset_paths_are_deferred() {
        let after = "\n<script type=\"module\" crossorigin src=\"/assets/index-Ab_1.js\"></script>\n\
                     <link rel=\"modulepreload\" crossorigin href=\"/assets/cn-X.js\">\n<link rel=\"stylesheet\">";
        let entry = DeferredEntry::find(after).unwrap();
        assert!(
            entry.loader.contains("s.src=\"/assets/index-Ab_1.js\"") && entry.loader.contains("[\"/assets/cn-X.js\"]")
        );
        let applied = entry.apply(after);
        assert!(
            !applied.contains("<script type=\"module\"") && !applied.contains("<link rel=\"modulepreload\""),
            "{applied}"
        );
        assert!(
            applied.contains(&format!("<script>{}</script>", entry.loader))
                && applied.contains("<link rel=\"stylesheet\">")
        );
        let odd = "<script type=\"module\" crossorigin src=\"/assets/x\\\");alert(1);//.js\"></script>";
        assert!(DeferredEntry::find(odd).is_none());
        assert!(DeferredEntry::find("<script src=\"/assets/a.js\"></script>").is_none());
    }

    #[test]
    fn inline_scripts_are_found_without_their_tags_and_scripts_with_a_source_are_not() {
        let head = "<head><script>a()</script><script src=\"/x.js\"></script><script>b()</script><script>c(";
        assert_eq!(inline_scripts(head), vec!["a()", "b()"]);
    }

    #[test]
    fn page_chunks_follow_imports_but_skip_the_entry() {
        let manifest = serde_json::json!({
            "index.html": {"file": "assets/index-a.js", "isEntry": true, "imports": ["_site-s.js"]},
            "_site-s.js": {"file": "assets/site-s.js"},
            "src/pages/Commands.tsx": {"file": "assets/Commands-b.js", "isDynamicEntry": true, "imports": ["index.html", "_Card-c.js", "_site-s.js"]},
            "_Card-c.js": {"file": "assets/Card-c.js", "imports": ["index.html", "_Icon-d.js"]},
            "_Icon-d.js": {"file": "assets/Icon-d.js"},
        });
        assert_eq!(
            page_chunks(Some(&manifest), "Commands"),
            vec!["/assets/Commands-b.js", "/assets/Card-c.js", "/assets/Icon-d.js"]
        );
        assert!(page_chunks(Some(&manifest), "Home").is_empty());
        assert!(page_chunks(None, "Commands").is_empty());
    }
}
