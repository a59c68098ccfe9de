//! The head the server writes into each route's shell (title, description, canonical,
//! link cards, preloads, the embedded site settings), the sitemap and robots.txt, and hostile
//! Host headers and paths, against the real binary.

use std::io::{Read, Write};

use crate::common::{Launch, Server, attr, client, json, meta};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HOST, IF_NONE_MATCH};

fn between<'a>(html: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let i = html.find(start)? + start.len();
    Some(&html[i..i + html[i..].find(end)?])
}

/// A copy of the bundled site.toml with `top` inserted above the first table.
fn site_file(dir: &std::path::Path, top: &str, extra_tail: &str) -> std::path::PathBuf {
    let bundled = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/site.toml")).unwrap();
    let at = bundled.find("\n[").unwrap();
    let text = format!("{}\n{top}\n{}{extra_tail}", &bundled[..at], &bundled[at..]);
    let path = dir.join("site.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn every_route_gets_its_own_head_from_site_toml() {
    let server = Server::start();
    let c = client();
    let site = json(c.get(server.url("/api/site")).send().await.unwrap()).await;
    let pages = site["pages"].as_array().unwrap();
    assert!(pages.len() >= 8);
    let name = site["name"].as_str().unwrap();
    let origin = server.base.clone();
    for page in pages {
        let path = page["path"].as_str().unwrap();
        let res = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let html = res.text().await.unwrap();
        let title = page["title"].as_str().unwrap();
        let description = page["description"].as_str().unwrap();
        assert_eq!(page["documentTitle"], format!("{title} | {name}"));
        assert_eq!(between(&html, "<title>", "</title>"), Some(attr(&format!("{title} | {name}")).as_str()), "{path}");
        assert_eq!(meta(&html, "description"), Some(attr(description)), "{path}");
        assert_eq!(meta(&html, "og:title"), Some(attr(title)));
        assert_eq!(meta(&html, "og:description"), Some(attr(description)));
        assert_eq!(meta(&html, "og:site_name"), Some(attr(name)));
        assert_eq!(meta(&html, "twitter:title"), Some(attr(title)));
        assert_eq!(meta(&html, "twitter:card").as_deref(), Some("summary_large_image"));
        let url = format!("{origin}{path}");
        assert_eq!(meta(&html, "og:url"), Some(url.clone()), "{path}");
        assert!(html.contains(&format!("<link rel=\"canonical\" href=\"{url}\" />")), "{path}");
        let indexable = page["index"].as_bool().unwrap();
        assert_eq!(html.contains("<meta name=\"robots\" content=\"noindex\" />"), !indexable, "{path}");
        assert_eq!(html.matches("<title>").count(), 1, "{path}: one title");
        assert!(html.contains("<div id=\"app\">"));
    }
    for (path, indexable) in [("/", true), ("/commands", true), ("/login", false), ("/admin", false)] {
        assert_eq!(pages.iter().find(|p| p["path"] == path).unwrap()["index"], indexable, "{path}");
    }

    // the social image: 1200x630 PNG, cached for a year (its URL carries its version)
    let home = c.get(server.url("/")).send().await.unwrap().text().await.unwrap();
    let image = meta(&home, "og:image").unwrap();
    assert_eq!(meta(&home, "twitter:image").as_deref(), Some(image.as_str()));
    assert!(image.starts_with(&format!("{origin}/social-card.png?v=")), "{image}");
    let png = c.get(&image).send().await.unwrap();
    assert_eq!(png.status(), StatusCode::OK);
    assert_eq!(png.headers()[CONTENT_TYPE], "image/png");
    assert_eq!(png.headers()[CACHE_CONTROL], "public, max-age=31536000, immutable");
    let bytes = png.bytes().await.unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 1200);
    assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 630);
    assert_eq!(meta(&home, "og:image:width").as_deref(), Some("1200"));
    assert_eq!(meta(&home, "og:image:height").as_deref(), Some("630"));
}

#[tokio::test]
async fn the_404_shell_is_noindex_and_names_no_url() {
    let server = Server::start();
    let res = client().get(server.url("/no-such-page")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let html = res.text().await.unwrap();
    assert!(html.contains("<meta name=\"robots\" content=\"noindex\" />"));
    assert!(between(&html, "<title>", "</title>").unwrap().starts_with("404 Page Not Found | "));
    assert!(!html.contains("rel=\"canonical\"") && meta(&html, "og:url").is_none());
    assert!(!html.contains("no-such-page"), "the path is not echoed");
}

#[tokio::test]
async fn the_shell_embeds_the_site_settings_and_preloads_the_route() {
    let server = Server::start();
    let c = client();
    let api = json(c.get(server.url("/api/site")).send().await.unwrap()).await;
    let html = c.get(server.url("/commands")).send().await.unwrap().text().await.unwrap();
    let block = between(&html, "<script type=\"application/json\" id=\"fanhub-site\">", "</script>").unwrap();
    assert!(!block.contains('<') && !block.contains('>'), "markup characters are escaped in the data block");
    let embedded: serde_json::Value = serde_json::from_str(block).unwrap();
    assert_eq!(embedded, api, "the block is GET /api/site");
    assert!(
        html.contains("<link rel=\"preload\" as=\"fetch\" crossorigin=\"use-credentials\" href=\"/api/commands\" />")
    );
    // the Commands page's own chunk, found through Vite's manifest, which is itself not served
    let chunk = between(&html, "<link rel=\"modulepreload\" crossorigin href=\"/assets/Commands-", "\"").unwrap();
    let res = c.get(server.url(&format!("/assets/Commands-{chunk}"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(c.get(server.url("/vite-manifest.json")).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    // the home page's code is in the entry chunk: nothing extra to preload
    let home = c.get(server.url("/")).send().await.unwrap().text().await.unwrap();
    assert!(!home.contains("modulepreload\" crossorigin href=\"/assets/Commands-"));
    // CSP unchanged: no inline script may run (the data block is not a script)
    let res = c.get(server.url("/")).send().await.unwrap();
    assert!(!res.headers()["content-security-policy"].to_str().unwrap().contains("unsafe-inline"));
}

#[tokio::test]
async fn each_variant_has_its_own_etag_and_answers_304_to_it() {
    let server = Server::start();
    let c = client();
    let home = c.get(server.url("/")).header(ACCEPT_ENCODING, "br").send().await.unwrap();
    assert_eq!(home.headers()[CONTENT_ENCODING], "br");
    assert_eq!(home.headers()[CACHE_CONTROL], "no-cache");
    let home_tag = home.headers()[ETAG].clone();
    let guides = c.get(server.url("/guides")).send().await.unwrap();
    let guides_tag = guides.headers()[ETAG].clone();
    assert_ne!(home_tag, guides_tag);
    let again = c.get(server.url("/guides")).header(IF_NONE_MATCH, guides_tag.clone()).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(again.headers()[ETAG], guides_tag);
    let other = c.get(server.url("/guides")).header(IF_NONE_MATCH, home_tag).send().await.unwrap();
    assert_eq!(other.status(), StatusCode::OK, "another route's ETag does not match");
    // another Host is another variant (its canonical URL differs)
    let other_host = c.get(server.url("/guides")).header(HOST, "fans.example.org").send().await.unwrap();
    assert_ne!(other_host.headers()[ETAG], guides_tag);
    assert!(other_host.text().await.unwrap().contains("href=\"http://fans.example.org/guides\""));
    // a 404 never answers 304
    let missing = c.get(server.url("/nope")).send().await.unwrap();
    let tag = missing.headers()[ETAG].clone();
    let missing = c.get(server.url("/nope")).header(IF_NONE_MATCH, tag).send().await.unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn hostile_hosts_are_never_echoed() {
    let server = Server::start();
    let c = client();
    for host in ["evil\"><script>alert(1)</script>", "a'b", "x.org/<b>", "x.org:80:80", &"a".repeat(600)] {
        for path in ["/", "/commands", "/sitemap.xml", "/robots.txt"] {
            let res = c.get(server.url(path)).header(HOST, host).send().await.unwrap();
            let status = res.status();
            let body = res.text().await.unwrap();
            assert!(!body.contains("<script>alert") && !body.contains("<b>"), "{path} with Host {host:?}: {body}");
            assert!(!body.contains(host), "{path} with Host {host:?} echoed it");
            match path {
                "/sitemap.xml" => assert_eq!(status, StatusCode::BAD_REQUEST, "{host}"),
                "/robots.txt" => assert!(status.is_success() && !body.contains("Sitemap:")),
                _ => {
                    assert_eq!(status, StatusCode::OK);
                    assert!(!body.contains("rel=\"canonical\""), "no canonical without a believable origin");
                }
            }
        }
    }
    // a believable but foreign Host is used only as the request's own origin, escaped
    let res = c.get(server.url("/")).header(HOST, "Other.Example:8080").send().await.unwrap();
    assert!(res.text().await.unwrap().contains("<link rel=\"canonical\" href=\"http://other.example:8080/\" />"));
}

/// Sends raw bytes (paths a URL library would escape first) and returns the whole answer.
fn raw_get(server: &Server, target: &str) -> String {
    let mut s = std::net::TcpStream::connect(server.addr()).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
    // One write; the server may answer 400 and close before reading it all, so a failed write is
    // not the test's business: the answer is.
    let request = format!("GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", server.addr());
    let _ = s.write_all(request.as_bytes());
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn hostile_and_long_paths_are_never_echoed() {
    let server = Server::start();
    for target in ["/a\"b", "/<script>alert(1)</script>", "/x'><img src=x onerror=alert(1)>", "/commands\"><b>"] {
        let answer = raw_get(&server, target);
        let status = answer.split(' ').nth(1).unwrap_or("");
        assert!(status == "404" || status == "400", "{target}: {}", answer.lines().next().unwrap_or(""));
        assert!(!answer.contains("<script>alert") && !answer.contains("<img") && !answer.contains("<b>"), "{target}");
    }
    let long = format!("/{}", "p".repeat(4000));
    let res = client().get(server.url(&long)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert!(!res.text().await.unwrap().contains(&"p".repeat(100)));
    let too_long = format!("/{}", "p".repeat(5000));
    assert_eq!(client().get(server.url(&too_long)).send().await.unwrap().status(), StatusCode::URI_TOO_LONG);
}

#[tokio::test]
async fn base_url_fixes_every_absolute_url_whatever_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let site = site_file(
        dir.path(),
        "base_url = \"https://fans.example.org/\"\nsocial_image = \"https://cdn.example.net/card.png?a=1&b=2\"",
        "",
    );
    let server =
        Server::launch(Launch { args: vec!["--site".into(), site.display().to_string()], ..Default::default() });
    let c = client();
    for host in [None, Some("attacker.example"), Some("evil\"><x")] {
        let mut req = c.get(server.url("/commands"));
        if let Some(h) = host {
            req = req.header(HOST, h);
        }
        let html = req.send().await.unwrap().text().await.unwrap();
        assert!(html.contains("<link rel=\"canonical\" href=\"https://fans.example.org/commands\" />"), "{host:?}");
        assert_eq!(meta(&html, "og:url").as_deref(), Some("https://fans.example.org/commands"));
        assert_eq!(meta(&html, "og:image").as_deref(), Some("https://cdn.example.net/card.png?a=1&amp;b=2"));
        assert!(!html.contains("attacker") && !html.contains("evil"));
    }
    let sitemap = c.get(server.url("/sitemap.xml")).header(HOST, "attacker.example").send().await.unwrap();
    assert_eq!(sitemap.status(), StatusCode::OK);
    let xml = sitemap.text().await.unwrap();
    assert!(xml.contains("<loc>https://fans.example.org/commands</loc>") && !xml.contains("attacker"), "{xml}");
    let robots = c.get(server.url("/robots.txt")).send().await.unwrap().text().await.unwrap();
    assert!(robots.contains("Sitemap: https://fans.example.org/sitemap.xml"), "{robots}");
    // not part of the public settings
    let api = json(c.get(server.url("/api/site")).send().await.unwrap()).await;
    assert!(api.get("baseUrl").is_none() && api.get("socialImage").is_none());
}

#[tokio::test]
async fn sitemap_and_robots_follow_the_request_and_a_trusted_proxy() {
    let server =
        Server::launch(Launch { args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()], ..Default::default() });
    let c = client();
    let res = c.get(server.url("/sitemap.xml")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[CONTENT_TYPE], "application/xml; charset=utf-8");
    let xml = res.text().await.unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    let site = json(c.get(server.url("/api/site")).send().await.unwrap()).await;
    let indexable: Vec<&str> = site["pages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["index"] == true)
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(xml.matches("<loc>").count(), indexable.len());
    for path in indexable {
        assert!(xml.contains(&format!("<loc>{}{path}</loc>", server.base)), "{path}: {xml}");
    }
    assert!(!xml.contains("/admin") && !xml.contains("/login"));
    let robots = c.get(server.url("/robots.txt")).send().await.unwrap();
    assert!(robots.headers()[CONTENT_TYPE].to_str().unwrap().starts_with("text/plain"));
    let robots = robots.text().await.unwrap();
    assert!(robots.contains("Disallow: /api/"));
    assert!(robots.contains(&format!("Sitemap: {}/sitemap.xml", server.base)), "{robots}");
    // https only when the trusted proxy says so
    let html = page_with(&server, "/guides", &[("host", "fans.example.org"), ("x-forwarded-proto", "https")]).await;
    assert!(html.contains("<link rel=\"canonical\" href=\"https://fans.example.org/guides\" />"));
}

async fn page_with(server: &Server, path: &str, headers: &[(&str, &str)]) -> String {
    let mut req = client().get(server.url(path));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.unwrap().text().await.unwrap()
}

#[tokio::test]
async fn forwarded_proto_is_ignored_without_a_trusted_proxy() {
    let server = Server::start();
    let html = page_with(&server, "/guides", &[("x-forwarded-proto", "https")]).await;
    assert!(html.contains(&format!("<link rel=\"canonical\" href=\"{}/guides\" />", server.base)));
}

#[test]
fn page_texts_must_match_the_route_table() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let extra = "\n[[pages]]\npath = \"/no-such-route\"\ntitle = \"X\"\ndescription = \"Y\"\n";
    let site = site_file(dir.path(), "", extra);
    let (code, _, err) =
        crate::common::run(&["serve", "--addr", "127.0.0.1:0", "--site", site.to_str().unwrap()], Some(&data));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("\"/no-such-route\" is not a route"), "{err}");

    let bundled = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/site.toml")).unwrap();
    let start = bundled.find("[[pages]]\npath = \"/guides\"").unwrap();
    let end = start + 9 + bundled[start + 9..].find("[[pages]]").unwrap();
    let without_guides = format!("{}{}", &bundled[..start], &bundled[end..]);
    std::fs::write(&site, without_guides).unwrap();
    let (code, _, err) =
        crate::common::run(&["serve", "--addr", "127.0.0.1:0", "--site", site.to_str().unwrap()], Some(&data));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the route \"/guides\" has no [[pages]] entry"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

#[tokio::test]
async fn the_home_shell_carries_its_first_screen_filled_from_the_site_file() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = r#"title = "Vote </h1><script>alert(1)</script> & \"win\"""#;
    let site = crate::common::edited_site_file(
        dir.path(),
        &[
            (r#"title = "Build. Vote. Take Command.""#, hostile),
            (r#"short_name = "Election Hub""#, r#"short_name = "Ünion Hub""#),
        ],
    );
    let server =
        Server::launch(Launch { args: vec!["--site".into(), site.display().to_string()], ..Default::default() });
    let home = client().get(server.url("/")).send().await.unwrap().text().await.unwrap();
    let app = between(&home, "<div id=\"app\">", "</main>").expect("the home shell carries its first screen");
    assert!(
        app.contains(">Vote &lt;/h1&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;win&quot;</h1>"),
        "the hero title, escaped: {app}"
    );
    assert!(app.contains(">Ü</span>") && app.contains(">Ünion Hub</span>"), "the logo initial and the short name");
    let settings = json(client().get(server.url("/api/site")).send().await.unwrap()).await;
    let subtitle = settings["hero"]["subtitle"].as_str().unwrap();
    assert!(app.contains(&attr(subtitle)), "the subtitle");
    assert!(!app.contains('\u{27e6}') && !app.contains('\u{27e7}'), "no token is left");
    assert!(!home.contains("<script>alert(1)"));
    let commands = client().get(server.url("/commands")).send().await.unwrap().text().await.unwrap();
    assert!(commands.contains("<div id=\"app\"></div>"), "routes without a first screen are rendered by the app");
    assert!(commands.contains("<link rel=\"stylesheet\"") && !commands.contains("<style>"));
}

#[tokio::test]
async fn the_home_shell_inlines_the_stylesheet_that_the_csp_pins_by_hash() {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let server = Server::start();
    let res = client().get(server.url("/")).send().await.unwrap();
    let csp = res.headers()["content-security-policy"].to_str().unwrap().to_string();
    let home = res.text().await.unwrap();
    assert!(!home.contains("<link rel=\"stylesheet\""), "the stylesheet is not fetched separately");
    let css = between(&home, "<style>", "</style>").expect("the stylesheet is inline");
    assert!(css.len() > 10_000, "the whole stylesheet");
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(css.as_bytes()));
    assert!(csp.contains(&format!("style-src 'self' 'sha256-{hash}';")), "{csp}");
    // The app starts after the first screen is painted: no script or preload shares the link
    // with the page; an inline loader, which the CSP allows by its hash, starts the entry.
    assert!(
        !home.contains("<script type=\"module\"") && !home.contains("<link rel=\"modulepreload\""),
        "nothing before the paint"
    );
    assert!(!home.contains("<link rel=\"preload\""), "no preload hint either");
    // Every inline script (the theme chosen before the first paint, the loader) is pinned by its hash.
    let inline_scripts: Vec<&str> =
        home.split("<script>").skip(1).map(|rest| rest.split("</script>").next().unwrap()).collect();
    assert!(inline_scripts.len() >= 2, "the theme script and the loader: {inline_scripts:?}");
    let script_src = csp.split(';').find(|d| d.trim_start().starts_with("script-src")).expect("a script-src");
    assert!(script_src.trim_start().starts_with("script-src 'self' "), "{csp}");
    for script in &inline_scripts {
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(script.as_bytes()));
        assert!(script_src.contains(&format!("'sha256-{hash}'")), "{script:.60} is not pinned: {csp}");
    }
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    let loader = inline_scripts.iter().find(|s| s.contains("first-contentful-paint")).expect("the inline loader");
    let entry = between(loader, "s.src=\"", "\"").unwrap();
    assert!(entry.starts_with("/assets/index-"), "{loader}");
    let commands = client().get(server.url("/commands")).send().await.unwrap().text().await.unwrap();
    assert!(
        commands.contains(&format!("<script type=\"module\" crossorigin src=\"{entry}\"></script>")),
        "without a first screen, as built"
    );
    assert!(
        commands.contains("<link rel=\"modulepreload\"") && commands.contains("<link rel=\"preload\" as=\"fetch\""),
        "with its preload hints"
    );
    let api = client().get(server.url("/api/health")).send().await.unwrap();
    assert_eq!(api.headers()["content-security-policy"].to_str().unwrap(), csp, "one policy for every answer");
}
