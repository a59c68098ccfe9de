//! Advertising against the real binary: the form's intake and its hostile uploads, durability,
//! the admins' review and the sponsored banner.

use std::io::Cursor;
use std::time::Duration;

use crate::common::{Launch, Server, client, json};
use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::Value;

fn png(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(width, height, |x, _| {
        if x < width / 2 { image::Rgb([30, 90, 200]) } else { image::Rgb([240, 200, 40]) }
    });
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img).write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn form_with(image: Option<(Vec<u8>, &str, &str)>) -> Form {
    let form = Form::new()
        .text("websiteUrl", "https://blockcraft.example/join")
        .text("adDescription", "The friendliest survival server! Weekly build contests. Free ranks.")
        .text("targetAudience", "roblox-players")
        .text("duration", "1-day")
        .text("links", r#"["https://discord.example/invite", ""]"#);
    match image {
        Some((bytes, name, mime)) => {
            form.part("image", Part::bytes(bytes).file_name(name.to_string()).mime_str(mime).unwrap())
        }
        None => form,
    }
}

async fn submit(server: &Server, form: Form) -> reqwest::Response {
    client().post(server.url("/api/advertise")).multipart(form).send().await.unwrap()
}

fn uploads(server: &Server) -> Vec<String> {
    std::fs::read_dir(server.data_dir.join("uploads"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

async fn applications(server: &Server, key: &str) -> Vec<Value> {
    let res = client().get(server.url("/api/admin/advertisements")).header("x-admin-key", key).send().await.unwrap();
    json(res).await["applications"].as_array().unwrap().clone()
}

async fn banner(server: &Server) -> Value {
    json(client().get(server.url("/api/admin/active-banner")).send().await.unwrap()).await
}

#[tokio::test]
async fn hostile_uploads_get_a_clear_4xx_and_write_nothing() {
    let server =
        Server::launch(Launch { args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()], ..Default::default() });
    let good = png(32, 16);
    let mut html_tail = good.clone();
    html_tail.extend_from_slice(b"<html><script>alert(1)</script></html>");
    let mut zip_tail = good.clone();
    zip_tail.extend_from_slice(b"PK\x03\x04 a zip archive follows");
    let mut bomb = png(1, 1);
    bomb[16..20].copy_from_slice(&60_000u32.to_be_bytes());
    bomb[20..24].copy_from_slice(&60_000u32.to_be_bytes());
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>"#.to_vec();
    /// (what it is, the image part: bytes, file name, content type; the answer expected)
    type Case<'a> = (&'a str, Option<(Vec<u8>, &'a str, &'a str)>, StatusCode);
    let cases: Vec<Case> = vec![
        (
            "html",
            Some((b"<!doctype html><script>alert(1)</script>".to_vec(), "ad.png", "image/png")),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        ("svg", Some((svg, "ad.svg", "image/svg+xml")), StatusCode::UNSUPPORTED_MEDIA_TYPE),
        ("png + html tail", Some((html_tail, "ad.png", "image/png")), StatusCode::BAD_REQUEST),
        ("png + zip tail", Some((zip_tail, "ad.png", "image/png")), StatusCode::BAD_REQUEST),
        ("truncated", Some((good[..good.len() / 2].to_vec(), "ad.png", "image/png")), StatusCode::BAD_REQUEST),
        ("60000x60000 header", Some((bomb, "ad.png", "image/png")), StatusCode::BAD_REQUEST),
        ("6 MiB", Some((vec![0x89; 6 * 1024 * 1024], "ad.png", "image/png")), StatusCode::PAYLOAD_TOO_LARGE),
        ("path traversal name", Some((good.clone(), "../../etc/ad.png", "image/png")), StatusCode::BAD_REQUEST),
        ("wrong extension", Some((good.clone(), "ad.gif", "image/gif")), StatusCode::UNSUPPORTED_MEDIA_TYPE),
        ("declared as html", Some((good.clone(), "ad.png", "text/html")), StatusCode::UNSUPPORTED_MEDIA_TYPE),
        ("missing image", None, StatusCode::BAD_REQUEST),
    ];
    for (i, (what, image, want)) in cases.into_iter().enumerate() {
        let res = client()
            .post(server.url("/api/advertise"))
            .header("x-forwarded-for", format!("192.0.2.{}", i + 1))
            .multipart(form_with(image))
            .send()
            .await
            .unwrap();
        let status = res.status();
        let body = res.text().await.unwrap();
        assert_eq!(status, want, "{what}: {body}");
        let error: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{what}: not JSON: {body}"));
        assert!(error["error"].as_str().is_some_and(|e| !e.is_empty()), "{what}: {body}");
    }
    let missing = submit(&server, form_with(None)).await;
    assert_eq!(
        json(missing).await["error"],
        "Missing Information: Please fill in website URL, description, and upload an image"
    );
    let not_multipart = client()
        .post(server.url("/api/advertise"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(not_multipart.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let huge_text = Form::new().text("websiteUrl", "https://a.example").text("adDescription", "x".repeat(20_000));
    assert_eq!(submit(&server, huge_text).await.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let bad_url = form_with(Some((good.clone(), "ad.png", "image/png"))).text("websiteUrl", "javascript:alert(1)");
    assert_eq!(submit(&server, bad_url).await.status(), StatusCode::BAD_REQUEST);
    assert!(uploads(&server).is_empty(), "nothing written: {:?}", uploads(&server));
    let key = crate::common::admin_key(&server);
    assert!(applications(&server, &key).await.is_empty());
}

#[tokio::test]
async fn a_submission_is_stored_clean_survives_kill_9_and_is_limited_per_ip() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let mut server = Server::launch(Launch { data_dir: Some(data_dir.clone()), ..Default::default() });
    let res = submit(&server, form_with(Some((png(64, 32), "banner.png", "image/png")))).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let id = json(res).await["id"].as_i64().unwrap();
    server.kill9();
    let server = Server::launch(Launch { data_dir: Some(data_dir), ..Default::default() });
    let key = crate::common::admin_key(&server);
    let apps = applications(&server, &key).await;
    assert_eq!(apps.len(), 1);
    let app = &apps[0];
    assert_eq!((app["id"].as_i64(), app["status"].as_str()), (Some(id), Some("pending")));
    assert_eq!(app["links"], serde_json::json!(["https://discord.example/invite"]), "empty links dropped");
    assert_eq!(app["targetAudience"], "roblox-players");
    assert_eq!(app["aiAnalysis"]["category"], "Game server");
    assert!(app["design"]["backgroundColor"].as_str().unwrap().starts_with('#'));
    let path = app["imagePath"].as_str().unwrap();
    assert_eq!(uploads(&server), vec![path.trim_start_matches("/uploads/").to_string()]);
    let res = client().get(server.url(path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "image/png");
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert!(res.headers()["cache-control"].to_str().unwrap().contains("immutable"));
    assert!(res.bytes().await.unwrap().starts_with(b"\x89PNG"));
    for escape in ["/uploads/..%2Ffanhub.db", "/uploads/%2e%2e%2ffanhub.db", "/uploads/fanhub.db", "/uploads/.png"] {
        let status = client().get(server.url(escape)).send().await.unwrap().status();
        assert_eq!(status, StatusCode::NOT_FOUND, "{escape}");
    }
    // 1 accepted before the restart (the limit is in memory), then 5 more an hour from one IP.
    for _ in 0..5 {
        assert_eq!(
            submit(&server, form_with(Some((png(8, 8), "a.png", "image/png")))).await.status(),
            StatusCode::CREATED
        );
    }
    let res = submit(&server, form_with(Some((png(8, 8), "a.png", "image/png")))).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(res.headers().contains_key("retry-after"));
}

#[tokio::test]
async fn approval_makes_exactly_one_sponsored_banner() {
    let server =
        Server::launch(Launch { args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()], ..Default::default() });
    let key = crate::common::admin_key(&server);
    let mut ids = Vec::new();
    for i in 0..3 {
        let res = client()
            .post(server.url("/api/advertise"))
            .header("x-forwarded-for", format!("198.51.100.{i}"))
            .multipart(form_with(Some((png(40, 20), "ad.png", "image/png"))))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::CREATED);
        ids.push(json(res).await["id"].as_i64().unwrap());
    }
    let review = |id: i64, status: &'static str| {
        let (url, key) = (server.url(&format!("/api/admin/advertisements/{id}")), key.clone());
        async move {
            client()
                .patch(url)
                .header("x-admin-key", key)
                .json(&serde_json::json!({ "status": status }))
                .send()
                .await
                .unwrap()
        }
    };
    assert_eq!(banner(&server).await["banner"]["isActive"], false);
    // Two admins approve two ads at the same moment: one banner at the end.
    let (a, b) = tokio::join!(review(ids[0], "approved"), review(ids[1], "approved"));
    assert_eq!((a.status(), b.status()), (StatusCode::OK, StatusCode::OK));
    let apps = applications(&server, &key).await;
    assert_eq!(apps.iter().filter(|a| a["isActive"] == true).count(), 1);
    let now = banner(&server).await;
    assert_eq!(now["banner"]["isActive"], true);
    let active_id = now["banner"]["advertisementId"].as_i64().unwrap();
    assert!(ids[..2].contains(&active_id));
    assert_eq!(now["advertisement"]["websiteUrl"], "https://blockcraft.example/join");
    assert!(now["advertisement"]["imagePath"].as_str().unwrap().starts_with("/uploads/"));
    let expires: jiff::Timestamp = now["banner"]["expiresAt"].as_str().unwrap().parse().unwrap();
    let hours = (expires.as_second() - jiff::Timestamp::now().as_second()) as f64 / 3600.0;
    assert!((23.9..=24.0).contains(&hours), "1-day runs 24 h from activation: {hours}");

    assert_eq!(review(ids[0], "rejected").await.status(), StatusCode::CONFLICT, "already approved");
    assert_eq!(review(ids[2], "maybe").await.status(), StatusCode::BAD_REQUEST);
    assert_eq!(review(999, "approved").await.status(), StatusCode::NOT_FOUND);
    assert_eq!(review(ids[2], "rejected").await.status(), StatusCode::OK);
    // A rejected application leaves the list and stays reachable for the audit, its image kept
    // during the audit window.
    let listed: Vec<i64> = applications(&server, &key).await.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    assert!(!listed.contains(&ids[2]) && listed.contains(&ids[0]) && listed.contains(&ids[1]), "{listed:?}");
    let of = |status: &str| {
        let url = server.url(&format!("/api/admin/advertisements?status={status}"));
        client().get(url).header("x-admin-key", &key).send()
    };
    let rejected = json(of("rejected").await.unwrap()).await["applications"].as_array().unwrap().clone();
    assert_eq!(rejected.len(), 1);
    assert_eq!((rejected[0]["id"].as_i64(), &rejected[0]["status"]), (Some(ids[2]), &serde_json::json!("rejected")));
    let image = rejected[0]["imagePath"].as_str().unwrap();
    assert_eq!(client().get(server.url(image)).send().await.unwrap().status(), StatusCode::OK);
    assert_eq!(json(of("approved").await.unwrap()).await["applications"].as_array().unwrap().len(), 2);
    assert_eq!(of("everything").await.unwrap().status(), StatusCode::BAD_REQUEST);
    let activate = |id: i64, text: &str| {
        let body = serde_json::json!({"advertisementId": id, "backgroundColor": "#7c3aed", "textColor": text, "borderColor": "#8b5cf6"});
        client().post(server.url("/api/admin/activate-banner")).header("x-admin-key", &key).json(&body).send()
    };
    assert_eq!(activate(ids[2], "#ffffff").await.unwrap().status(), StatusCode::CONFLICT, "a rejected ad cannot run");
    assert_eq!(activate(ids[0], "#8b5cf6").await.unwrap().status(), StatusCode::BAD_REQUEST, "unreadable text");
    assert_eq!(activate(ids[0], "#ffffff").await.unwrap().status(), StatusCode::OK);
    assert_eq!(banner(&server).await["banner"]["advertisementId"], ids[0]);
    assert_eq!(banner(&server).await["banner"]["backgroundColor"], "#7c3aed");

    let stats =
        json(client().get(server.url("/api/admin/stats")).header("x-admin-key", &key).send().await.unwrap()).await;
    assert_eq!(stats["ads"], serde_json::json!({"approved": 2, "pending": 0, "active": 1}));

    let res =
        client().post(server.url("/api/admin/deactivate-banner")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(banner(&server).await["banner"]["isActive"], false);
    assert_eq!(activate(ids[1], "#ffffff").await.unwrap().status(), StatusCode::OK);
    let res = client().post(server.url("/api/admin/revert-banner")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let reverted = banner(&server).await;
    assert_eq!(reverted["banner"]["isActive"], false);
    assert!(reverted["advertisement"].is_null());
    let anonymous =
        client().post(server.url("/api/admin/activate-banner")).json(&serde_json::json!({})).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_default_banner_is_back_at_the_expiry_instant_while_clients_poll() {
    let server = Server::start();
    let key = crate::common::admin_key(&server);
    let res = submit(&server, form_with(Some((png(40, 20), "ad.png", "image/png")))).await;
    let id = json(res).await["id"].as_i64().unwrap();
    let url = server.url(&format!("/api/admin/advertisements/{id}"));
    let res = client()
        .patch(url)
        .header("x-admin-key", &key)
        .json(&serde_json::json!({"status": "approved"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let first = client().get(server.url("/api/admin/active-banner")).send().await.unwrap();
    let sponsored_etag = first.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(json(first).await["banner"]["isActive"], true);

    // Bring the end of the run close (a day is too long to wait for): the server learns the new
    // expiry at its next periodic refresh (every 5 s) and must flip at the instant itself, not
    // at the refresh after it.
    let expires_ms = jiff::Timestamp::now().as_millisecond() + 7_000;
    let db = rusqlite::Connection::open(server.data_dir.join("fanhub.db")).unwrap();
    db.busy_timeout(Duration::from_secs(5)).unwrap();
    db.execute("UPDATE active_ad SET expires_at = ?1", [expires_ms]).unwrap();
    drop(db);
    let flipped_at = loop {
        let res = client()
            .get(server.url("/api/admin/active-banner"))
            .header("if-none-match", &sponsored_etag)
            .send()
            .await
            .unwrap();
        let now = jiff::Timestamp::now().as_millisecond();
        if res.status() == StatusCode::OK {
            let body = json(res).await;
            if body["banner"]["isActive"] == false {
                break now;
            }
        } else {
            assert_eq!(res.status(), StatusCode::NOT_MODIFIED, "unchanged while it runs");
        }
        assert!(now < expires_ms + 3_000, "still sponsored 3 s after its expiry");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(flipped_at >= expires_ms, "not before its time");
    assert!(flipped_at - expires_ms < 500, "flipped {} ms after the expiry", flipped_at - expires_ms);
    let apps = applications(&server, &key).await;
    assert_eq!(apps[0]["isActive"], false);
}

/// The multipart body's schema states what the server checks, so schema-valid text is accepted.
#[tokio::test]
async fn the_documented_form_states_the_constraints_the_server_enforces() {
    let server = Server::start();
    let doc = json(client().get(server.url("/api/openapi.json")).send().await.unwrap()).await;
    let op = &doc["paths"]["/api/advertise"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"];
    let form = match op["$ref"].as_str() {
        Some(r) => &doc["components"]["schemas"][r.rsplit('/').next().unwrap()],
        None => op,
    };
    let required: Vec<&str> = form["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for field in ["websiteUrl", "adDescription", "duration", "image"] {
        assert!(required.contains(&field), "{field} is required: {form}");
    }
    let p = &form["properties"];
    assert_eq!(p["websiteUrl"]["maxLength"], 2048);
    assert!(p["websiteUrl"]["pattern"].as_str().unwrap().starts_with("^https?://"), "{}", p["websiteUrl"]);
    assert_eq!(
        (&p["adDescription"]["minLength"], &p["adDescription"]["maxLength"]),
        (&serde_json::json!(1), &serde_json::json!(1000))
    );
    assert_eq!(p["adDescription"]["pattern"], r"\S", "not only spaces");
    assert_eq!(p["duration"]["pattern"], "^(1-day|1-month|10-fullscreen)$");
    assert!(p["targetAudience"]["pattern"].as_str().unwrap().contains("roblox-players"));
    assert!(p["links"]["pattern"].as_str().unwrap().starts_with(r"^(\[\]|\["), "{}", p["links"]);
    assert_eq!(p["image"]["minLength"], 1);

    // Values at the documented edges are accepted as they are documented.
    let key = crate::common::admin_key(&server);
    let ten: Vec<String> = (0..10).map(|i| format!("http://l{i}.example/{}", "p".repeat(300))).collect();
    let form = Form::new()
        .text("websiteUrl", format!("https://{}", "a".repeat(2040)))
        .text("adDescription", "é".repeat(1000))
        .text("duration", "10-fullscreen")
        .text("links", serde_json::to_string(&ten).unwrap())
        .text("fullscreenMessageType", "user-input")
        .text("fullscreenCustomMessage", "m".repeat(200))
        .part("image", Part::bytes(png(8, 8)).file_name("a.png").mime_str("image/png").unwrap());
    let res = submit(&server, form).await;
    assert_eq!(res.status(), StatusCode::CREATED, "{}", res.text().await.unwrap());
    assert_eq!(applications(&server, &key).await[0]["links"].as_array().unwrap().len(), 10);

    // `links` is nullable in the document: a JSON null is no links.
    let form = Form::new()
        .text("websiteUrl", "https://nolinks.example/")
        .text("adDescription", "No links")
        .text("duration", "1-day")
        .text("links", "null")
        .part("image", Part::bytes(png(8, 8)).file_name("a.png").mime_str("image/png").unwrap());
    let res = submit(&server, form).await;
    assert_eq!(res.status(), StatusCode::CREATED, "{}", res.text().await.unwrap());
    let stored = applications(&server, &key).await;
    assert!(
        stored.iter().any(|a| a["websiteUrl"] == "https://nolinks.example/" && a["links"] == serde_json::json!([]))
    );
}

/// The built-in analysis names a category only when the ad's words say so: a build contest is
/// not guessed into a video channel, a channel ad is still recognised, and the admins' answer
/// carries the why (the matched words, a confidence, unsure).
#[tokio::test]
async fn the_analysis_says_when_it_is_unsure_and_why() {
    let server =
        Server::launch(Launch { args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()], ..Default::default() });
    let key = crate::common::admin_key(&server);
    let ad = |ip: &'static str, url: &'static str, description: &'static str, links: &'static str| {
        let form = Form::new()
            .text("websiteUrl", url)
            .text("adDescription", description)
            .text("duration", "1-day")
            .text("links", links)
            .part("image", Part::bytes(png(60, 20)).file_name("ad.png").mime_str("image/png").unwrap());
        client().post(server.url("/api/advertise")).header("x-forwarded-for", ip).multipart(form).send()
    };
    let contest = ad(
        "203.0.113.1",
        "https://th-events.example/contest",
        "TH BUILD CONTEST: build the best castle and win 1,000 coins! Entries close Friday; the winners are shown live on stream.",
        r#"["https://www.youtube.com/watch?v=trailer"]"#,
    )
    .await
    .unwrap();
    assert_eq!(contest.status(), StatusCode::CREATED);
    let contest_id = json(contest).await["id"].as_i64().unwrap();
    let channel = ad(
        "203.0.113.2",
        "https://www.youtube.com/@BuilderBob",
        "New building tutorials every week on my YouTube channel. Subscribe so you never miss one!",
        "[]",
    )
    .await
    .unwrap();
    let channel_id = json(channel).await["id"].as_i64().unwrap();
    let apps = applications(&server, &key).await;
    let analysis = |id: i64| apps.iter().find(|a| a["id"] == id).unwrap()["aiAnalysis"].clone();

    let a = analysis(contest_id);
    assert_eq!(a["certainty"], "unsure", "{a}");
    assert_eq!(a["category"], "Unsure");
    assert_ne!(a["category"], "Video channel");
    assert_eq!(a["callToAction"], "Visit site", "never 'Watch and subscribe' from a guess");
    assert_eq!(a["mainProduct"], "th-events.example", "the site, not an invented product");
    assert!(a["confidence"].as_u64().unwrap() < 50);
    // What it leaned to and why, for the admin.
    assert_eq!(a["guess"], "Video channel");
    assert_eq!(a["evidence"][0]["matched"], serde_json::json!(["youtube.com (link)", "stream"]));
    // The fields the spec lists are all still there.
    for field in ["summary", "mainProduct", "category", "priceRange", "keyFeatures", "callToAction"] {
        assert!(!a[field].is_null(), "{field}: {a}");
    }

    let c = analysis(channel_id);
    assert_eq!(
        (&c["certainty"], &c["category"]),
        (&serde_json::json!("confident"), &serde_json::json!("Video channel")),
        "{c}"
    );
    assert_eq!(c["callToAction"], "Watch and subscribe");
    assert_eq!(c["confidence"], 100);
    assert!(c["evidence"][0]["matched"].as_array().unwrap().contains(&serde_json::json!("youtube.com (website)")));
    assert!(c["evidence"][0]["points"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn a_webp_is_stored_from_its_pixels_and_a_huge_one_is_refused_for_its_pixels() {
    let server = Server::start();
    let img = image::RgbaImage::from_fn(600, 200, |x, _| {
        if (x / 20) % 2 == 0 { image::Rgba([20, 100, 120, 255]) } else { image::Rgba([250, 210, 60, 255]) }
    });
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(img).write_to(&mut out, image::ImageFormat::WebP).unwrap();
    let webp = out.into_inner();
    let res = submit(&server, form_with(Some((webp.clone(), "wide.webp", "image/webp")))).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let key = crate::common::admin_key(&server);
    let path = applications(&server, &key).await[0]["imagePath"].as_str().unwrap().to_string();
    // A lossless WebP is written anew from its pixels, without loss: as PNG.
    assert!(path.ends_with(".png"), "{path}");
    let res = client().get(server.url(&path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "image/png");
    let stored = res.bytes().await.unwrap();
    assert_ne!(&stored[..], &webp[..]);
    assert_eq!(image::load_from_memory(&stored).unwrap().width(), 600);

    // Noise sent as a low-quality JPEG within 5 MB grows past it at the stored quality: refused for
    // its pixels, not for a size it never had.
    let mut seed = 0x9e37_79b9_u32;
    let noise = image::RgbImage::from_fn(4096, 4096, |_, _| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let [r, g, b, _] = seed.to_le_bytes();
        image::Rgb([r, g, b])
    });
    let mut out = Cursor::new(Vec::new());
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 10).encode_image(&noise).unwrap();
    let bytes = out.into_inner();
    assert!(
        bytes.len() <= 5 * 1024 * 1024,
        "the precondition: the upload itself is within 5 MB ({} bytes)",
        bytes.len()
    );
    let res = submit(&server, form_with(Some((bytes, "noise.jpg", "image/jpeg")))).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let body = json(res).await;
    assert!(body.to_string().contains("too many pixels that do not compress"), "{body}");
}
