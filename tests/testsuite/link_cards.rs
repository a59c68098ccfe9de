//! Link cards of their own (src/shell/cards.rs, src/shell/pictures.rs) against the real binary
//! and the fake Roblox: the page sent for `/commands?command=NAME`, `/guides?guide=ID` and
//! `/newgen-detector?username=NAME` names that command, guide or checked player; a player's card
//! picture; and no link, however many are opened, ever costs a Roblox call. Hostile values give
//! the page's own card, never a 500, and nothing from the query is written unescaped.

use std::io::{Read, Write};

use crate::common::fake_roblox::FakeRoblox;
use crate::common::{Launch, Server, SiteSetup, attr, client, json, meta};
use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use serde_json::Value;

const ELC: &str = "elc = [2124001, 2124002, 2124003, 2124004, 2124005, 2124006]";

fn title(html: &str) -> &str {
    let start = html.find("<title>").expect("a title") + "<title>".len();
    &html[start..start + html[start..].find("</title>").unwrap()]
}

async fn page(server: &Server, path: &str) -> (StatusCode, String) {
    let res = client().get(server.url(path)).send().await.unwrap();
    (res.status(), res.text().await.unwrap())
}

/// Calls the fake Roblox has answered, all endpoints together (`GET /_fake/calls`).
async fn roblox_calls(fake: &FakeRoblox) -> u64 {
    let calls: Value = client().get(format!("{}/_fake/calls", fake.base)).send().await.unwrap().json().await.unwrap();
    calls["calls"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum()
}

/// A server pointed at `fake`, its site file listing six ELC badges plus `edits`.
fn setup(fake: &FakeRoblox, edits: &[(&str, &str)]) -> SiteSetup {
    fake.set(|m| m.award_dates_need_cookie = false);
    let template = fake.template();
    let all: Vec<(&str, &str)> = [("elc = []", ELC)].into_iter().chain(edits.iter().copied()).collect();
    SiteSetup::new(&all, &[("FANHUB_ROBLOX_API", template.as_str()), ("FANHUB_ROBLOX_TIMEOUT_MS", "1500")])
}

async fn check_player(server: &Server, name: &str) -> Value {
    let site = json(client().get(server.url("/api/site")).send().await.unwrap()).await;
    let key = site["publicApiKey"].as_str().unwrap();
    let res =
        client().get(server.url(&format!("/api/newgen-check/{name}"))).header("x-api-key", key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{name}");
    json(res).await
}

/// The head of the page itself, as site.toml's `[[pages]]` words it.
async fn assert_generic(server: &Server, html: &str, route: &str) {
    let site = json(client().get(server.url("/api/site")).send().await.unwrap()).await;
    let page = site["pages"].as_array().unwrap().iter().find(|p| p["path"] == route).unwrap();
    assert_eq!(title(html), attr(page["documentTitle"].as_str().unwrap()), "{route}");
    assert_eq!(meta(html, "og:title"), Some(attr(page["title"].as_str().unwrap())), "{route}");
    assert_eq!(meta(html, "og:url"), Some(format!("{}{route}", server.base)), "{route}");
    assert!(meta(html, "og:image").unwrap().contains("/social-card.png?v="), "{route}");
}

#[tokio::test]
async fn a_checked_player_has_a_card_and_a_picture_and_no_link_calls_roblox() {
    let fake = FakeRoblox::start();
    let setup = setup(&fake, &[]);
    let server = setup.start();

    // Before any check: the page's own card, and not one Roblox call for 200 different names.
    for i in 0..200 {
        let (status, html) = page(&server, &format!("/newgen-detector?username=OgBuilder{i}")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(!html.contains(&format!("OgBuilder{i}")), "an unchecked name is not written into the page");
        if i % 50 == 0 {
            assert_generic(&server, &html, "/newgen-detector").await;
        }
    }
    let res = client().get(server.url("/api/players/OgBuilder7/card.png")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND, "no picture for a player not checked");
    assert_eq!(res.headers()[CACHE_CONTROL], "no-store");
    assert_eq!(json(res).await["error"], "No recent check of this player");
    assert_eq!(roblox_calls(&fake).await, 0, "links never ask Roblox");

    // After a check through the API: the card says the verdict the API answered.
    let answer = check_player(&server, "OgBuilder7").await;
    let after_check = roblox_calls(&fake).await;
    assert!(after_check > 0);
    let (status, html) = page(&server, "/newgen-detector?username=ogbuilder7").await;
    assert_eq!(status, StatusCode::OK);
    let classification = answer["classification"].as_str().unwrap();
    let card_title = format!("OgBuilder7: {classification}");
    assert_eq!(meta(&html, "og:title"), Some(attr(&card_title)));
    assert_eq!(meta(&html, "twitter:title"), Some(attr(&card_title)));
    assert!(title(&html).starts_with(&attr(&card_title)), "{}", title(&html));
    let description = meta(&html, "og:description").unwrap();
    let (count, total) = (&answer["elcBadges"]["count"], &answer["elcBadges"]["total"]);
    assert!(description.contains(&format!("owns {count} of {total} ELC badges")), "{description}");
    assert!(description.contains(&format!("({} era)", answer["generationLabel"].as_str().unwrap())), "{description}");
    let joined: jiff::Timestamp = answer["joinDate"].as_str().unwrap().parse().unwrap();
    let month = joined.to_zoned(jiff::tz::TimeZone::UTC).strftime("%B %Y").to_string();
    assert!(description.contains(&format!("joined Roblox {month}")), "{description}");
    assert_eq!(meta(&html, "description"), Some(description.clone()));
    let canonical = format!("{}/newgen-detector?username=OgBuilder7", server.base);
    assert_eq!(meta(&html, "og:url"), Some(canonical.clone()), "the stored spelling of the name");
    assert!(html.contains(&format!("<link rel=\"canonical\" href=\"{canonical}\" />")));
    // The address always shows that player (the page runs the check), so search engines may list it.
    assert!(!html.contains("noindex"), "a player's page is indexable");
    let image = meta(&html, "og:image").unwrap();
    let prefix = format!("{}/api/players/OgBuilder7/card.png?v=", server.base);
    assert!(image.starts_with(&prefix), "{image}");
    assert_eq!(meta(&html, "twitter:image"), Some(image.clone()));
    assert_eq!(meta(&html, "twitter:card").as_deref(), Some("summary_large_image"));
    assert_eq!(meta(&html, "og:image:alt"), Some(attr(&card_title)));
    // The page variant is kept: the same ETag, and a 304 to it.
    let res = client().get(server.url("/newgen-detector?username=OgBuilder7")).send().await.unwrap();
    let tag = res.headers()[ETAG].clone();
    let again = client()
        .get(server.url("/newgen-detector?username=OgBuilder7"))
        .header(IF_NONE_MATCH, tag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);

    // The picture: a 1200x630 PNG, drawn once, then from memory; its ETag answers 304.
    let res = client().get(&image).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[CONTENT_TYPE], "image/png");
    assert_eq!(res.headers()["x-fanhub-card"], "drawn");
    assert!(res.headers()[CACHE_CONTROL].to_str().unwrap().starts_with("public, max-age=0, s-maxage="));
    let etag = res.headers()[ETAG].clone();
    assert_eq!(etag.to_str().unwrap(), format!("\"{}\"", &image[prefix.len()..]), "the version is the ETag");
    let png = res.bytes().await.unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let decoded = image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (1200, 630));
    let res = client().get(server.url("/api/players/ogbuilder7/card.png")).send().await.unwrap();
    assert_eq!(res.headers()["x-fanhub-card"], "memory", "the second request is served from the cache");
    assert_eq!(res.headers()[ETAG], etag);
    assert!(res.bytes().await.unwrap() == png);
    let res = client().get(&image).header(IF_NONE_MATCH, etag.clone()).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(res.headers()[ETAG], etag);

    // However often the card and its picture are opened, Roblox hears nothing more.
    for _ in 0..20 {
        assert_eq!(page(&server, "/newgen-detector?username=OgBuilder7").await.0, StatusCode::OK);
        assert_eq!(client().get(&image).send().await.unwrap().status(), StatusCode::OK);
    }
    assert_eq!(roblox_calls(&fake).await, after_check);

    // Bad names for the picture: 400, never a lookup.
    for bad in ["ab", "a_b_c", "_abc", "x%20y", "%3Cscript%3E", &"a".repeat(30)] {
        let res = client().get(server.url(&format!("/api/players/{bad}/card.png"))).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    assert_eq!(roblox_calls(&fake).await, after_check);

    // A restart keeps the check (it is stored) and the picture (on disk).
    drop(server);
    let server = setup.start();
    let (_, html) = page(&server, "/newgen-detector?username=OgBuilder7").await;
    assert_eq!(meta(&html, "og:title"), Some(attr(&card_title)));
    let res = client().get(server.url("/api/players/OgBuilder7/card.png")).send().await.unwrap();
    assert_eq!(res.headers()["x-fanhub-card"], "disk");
    assert_eq!(roblox_calls(&fake).await, after_check);
}

#[tokio::test]
async fn a_check_older_than_the_cache_lifetime_gives_the_generic_card() {
    let fake = FakeRoblox::start();
    let setup = setup(&fake, &[]);
    let server = setup.start();
    check_player(&server, "VetStale").await;
    let (_, html) = page(&server, "/newgen-detector?username=VetStale").await;
    assert_eq!(meta(&html, "og:title").as_deref().map(|t| t.starts_with("VetStale: ")), Some(true));
    // The stored check ages past [roblox] profile_ttl_hours (6).
    let db = rusqlite::Connection::open(server.data_dir.join("fanhub.db")).unwrap();
    let aged = db
        .execute("UPDATE players SET checked_at = checked_at - 6 * 3600 * 1000 - 1000 WHERE username = 'VetStale'", [])
        .unwrap();
    assert_eq!(aged, 1);
    let calls = roblox_calls(&fake).await;
    let (_, html) = page(&server, "/newgen-detector?username=VetStale").await;
    assert_generic(&server, &html, "/newgen-detector").await;
    let res = client().get(server.url("/api/players/VetStale/card.png")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(roblox_calls(&fake).await, calls, "a stale check is not renewed by a link");
}

#[tokio::test]
async fn player_pictures_are_kept_in_bounded_numbers() {
    let fake = FakeRoblox::start();
    let setup = setup(
        &fake,
        &[("pictures_in_memory = 64", "pictures_in_memory = 2"), ("pictures_on_disk = 500", "pictures_on_disk = 3")],
    );
    let server = setup.start();
    let names = ["VetAlpha", "VetBravo", "MidCharlie", "NewDelta", "OgEcho"];
    for name in names {
        check_player(&server, name).await;
    }
    let source = |name: &'static str| {
        let url = server.url(&format!("/api/players/{name}/card.png"));
        async move {
            let res = client().get(url).send().await.unwrap();
            assert_eq!(res.status(), StatusCode::OK, "{name}");
            res.headers()["x-fanhub-card"].to_str().unwrap().to_string()
        }
    };
    let cache = server.data_dir.join("card-cache");
    let files = || std::fs::read_dir(&cache).unwrap().count();
    for name in names {
        assert_eq!(source(name).await, "drawn", "{name}");
        assert!(files() <= 3, "{} files on disk", files());
    }
    assert_eq!(files(), 3);
    assert_eq!(source("OgEcho").await, "memory");
    assert_eq!(source("MidCharlie").await, "disk", "out of memory, still on disk");
    assert_eq!(source("VetAlpha").await, "drawn", "the oldest went from both");
    assert_eq!(files(), 3, "the disk holds its bound");
}

#[tokio::test]
async fn commands_and_guides_have_cards_from_the_data() {
    let dir = tempfile::tempdir().unwrap();
    // Texts and the public address from the site file: both escaped where the head is written.
    let site = crate::common::edited_site_file(
        dir.path(),
        &[
            ("# base_url = \"https://fans.example.org\"", "base_url = \"https://fans.example.org\""),
            (
                "command_title = \":{name} \u{2014} {category} command\"",
                "command_title = \"<b>:{name}</b> & \\\"{category}\\\"\"",
            ),
        ],
    );
    let server =
        Server::launch(Launch { args: vec!["--site".into(), site.display().to_string()], ..Default::default() });
    let commands = json(client().get(server.url("/api/commands")).send().await.unwrap()).await;
    let command = &commands.as_array().unwrap()[0];
    let name = command["name"].as_str().unwrap();
    for asked in [name.to_string(), name.to_uppercase(), format!(":{name}")] {
        let (status, html) = page(&server, &format!("/commands?command={}", asked.replace(':', "%3A"))).await;
        assert_eq!(status, StatusCode::OK);
        let card_title = format!("<b>:{name}</b> & \"{}\"", command["category"].as_str().unwrap());
        assert_eq!(meta(&html, "og:title"), Some(attr(&card_title)), "{asked}");
        assert!(!html.contains("<b>:"), "escaped");
        let description = meta(&html, "og:description").unwrap();
        assert!(description.starts_with(&attr(command["description"].as_str().unwrap())), "{description}");
        assert!(
            description.ends_with(&format!("Usage: {}", attr(command["usage"].as_str().unwrap()))),
            "{description}"
        );
        assert_eq!(meta(&html, "og:url"), Some(format!("https://fans.example.org/commands?command={name}")));
        assert!(html.contains(&format!(
            "<link rel=\"canonical\" href=\"https://fans.example.org/commands?command={name}\" />"
        )));
        assert!(meta(&html, "og:image").unwrap().starts_with("https://fans.example.org/social-card.png?v="));
        assert!(!html.contains("name=\"robots\""), "a command's page is for search engines too");
    }

    let guides = json(client().get(server.url("/api/guides")).send().await.unwrap()).await;
    let guide = &guides.as_array().unwrap()[1];
    let id = guide["id"].as_u64().unwrap();
    let (status, html) = page(&server, &format!("/guides?guide={id}")).await;
    assert_eq!(status, StatusCode::OK);
    let guide_title = guide["title"].as_str().unwrap();
    assert_eq!(meta(&html, "og:title"), Some(attr(guide_title)));
    assert!(title(&html).starts_with(&attr(guide_title)));
    let content = guide["content"].as_str().unwrap();
    let first = &content[..content.find(". ").unwrap() + 1];
    assert_eq!(meta(&html, "og:description"), Some(attr(first)));
    assert_eq!(meta(&html, "og:url"), Some(format!("https://fans.example.org/guides?guide={id}")));
}

/// Sends raw bytes (a query a URL library would escape first) and returns the status and body.
fn raw_get(server: &Server, target: &str) -> (String, String) {
    let mut s = std::net::TcpStream::connect(server.addr()).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
    let request = format!("GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", server.addr());
    let _ = s.write_all(request.as_bytes());
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let answer = String::from_utf8_lossy(&out).into_owned();
    let status = answer.split(' ').nth(1).unwrap_or("").to_string();
    (status, answer)
}

#[tokio::test]
async fn hostile_names_and_ids_give_the_generic_page_never_a_500() {
    let fake = FakeRoblox::start();
    let setup = setup(&fake, &[]);
    let server = setup.start();
    let hostile = [
        "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        "a%22b%26c%3Cd",
        "%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E",
        "%00",
        "%FF%FE",
        "%E2%80%A8",
        "a_b_c",
        "_abc",
        "-1",
        "1e3",
        "0x10",
        "99999999999",
        "1%20",
        "fly%00",
        "%25",
        "",
    ];
    for (route, param) in [("/commands", "command"), ("/guides", "guide"), ("/newgen-detector", "username")] {
        for value in hostile {
            let path = format!("{route}?{param}={value}");
            let (status, html) = page(&server, &path).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_generic(&server, &html, route).await;
            assert!(!html.contains("<script>alert") && !html.contains("<img") && !html.contains("a\"b&c<d"), "{path}");
        }
        // The same values written raw, as a hand-made request could send them.
        for value in ["<script>alert(1)</script>", "a\"b", "'><img src=x>", "x&y<z"] {
            let (status, answer) = raw_get(&server, &format!("{route}?{param}={value}"));
            assert!(status == "200" || status == "400", "{route} {value}: {status}");
            assert!(
                !answer.contains("<script>alert") && !answer.contains("<img") && !answer.contains("a\"b"),
                "{value}"
            );
        }
        // Oversized queries: answered, or refused with a 4xx; never a 500.
        for size in [1_000, 4_000] {
            let path = format!("{route}?{param}={}", "a".repeat(size));
            let status = client().get(server.url(&path)).send().await.unwrap().status();
            assert!(status == StatusCode::OK || status.is_client_error(), "{route} with {size} bytes: {status}");
        }
        // 100 KB, more than an HTTP client library sends: written raw.
        let (status, _) = raw_get(&server, &format!("{route}?{param}={}", "a".repeat(100_000)));
        assert!(status == "200" || status.starts_with('4'), "{route} with 100 KB: {status}");
        // Many parameters, the one asked about among them.
        let crowded = (0..300).map(|i| format!("p{i}={i}")).collect::<Vec<_>>().join("&");
        let (status, html) = page(&server, &format!("{route}?{crowded}&{param}=%3Cb%3E")).await;
        assert_eq!(status, StatusCode::OK);
        assert_generic(&server, &html, route).await;
    }
    // A parameter on a route without cards, or a card's parameter on another route, changes nothing.
    let (_, html) = page(&server, "/community?username=OgBuilder&command=fly").await;
    assert_generic(&server, &html, "/community").await;
    assert_eq!(roblox_calls(&fake).await, 0, "no value reached Roblox");
}
