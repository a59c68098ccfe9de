//! The public endpoints of the first half of the site: site settings, commands, guides,
//! health, stats (with real page-view counting) and the default banner.

use crate::common::{Server, client, json};
use reqwest::StatusCode;

#[tokio::test]
async fn site_settings_come_from_the_site_file() {
    let server = Server::start();
    let site = json(client().get(server.url("/api/site")).send().await.unwrap()).await;
    for key in [
        "name",
        "tagline",
        "links",
        "hero",
        "features",
        "creatorVideos",
        "clan",
        "defaultBanner",
        "factions",
        "permissions",
        "selectors",
    ] {
        assert!(!site[key].is_null(), "{key} missing");
    }
    assert_eq!(site["features"].as_array().unwrap().len(), 6);
    assert_eq!(site["factions"].as_array().unwrap().len(), 4);
    assert_eq!(site["version"]["label"], "V-1.6");
    assert!(site["version"]["build"].as_str().unwrap().len() >= 8);
    assert_eq!(site["defaultBanner"]["backgroundColor"], "#7c3aed");
}

#[tokio::test]
async fn another_site_file_makes_it_another_games_site() {
    let dir = tempfile::tempdir().unwrap();
    let bundled = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/site.toml")).unwrap();
    let first_name = bundled.lines().find(|l| l.starts_with("name = ")).unwrap();
    let custom = bundled.replacen(first_name, "name = \"Other Game Fans\"", 1);
    let path = dir.path().join("site.toml");
    std::fs::write(&path, custom).unwrap();
    let server = Server::launch(crate::common::Launch {
        args: vec!["--site".into(), path.display().to_string()],
        ..Default::default()
    });
    let site = json(client().get(server.url("/api/site")).send().await.unwrap()).await;
    assert_eq!(site["name"], "Other Game Fans");
}

#[tokio::test]
async fn commands_are_over_a_hundred_with_the_spec_fields() {
    let server = Server::start();
    let commands = json(client().get(server.url("/api/commands")).send().await.unwrap()).await;
    let list = commands.as_array().unwrap();
    assert!(list.len() >= 100, "{} commands", list.len());
    for c in list {
        for key in ["id", "name", "description", "usage", "examples", "category", "permission", "avgRating"] {
            assert!(!c[key].is_null(), "{key} missing in {c}");
        }
        assert!(["OA", "OR", "UP", "NE"].contains(&c["permission"].as_str().unwrap()));
        assert!(c["examples"].as_array().unwrap().len() <= 3);
    }
    let popular = json(client().get(server.url("/api/commands/popular")).send().await.unwrap()).await;
    assert!(popular.as_array().unwrap().is_empty(), "nobody rated anything yet: {popular}");
}

#[tokio::test]
async fn guides_cover_the_four_categories() {
    let server = Server::start();
    let guides = json(client().get(server.url("/api/guides")).send().await.unwrap()).await;
    let list = guides.as_array().unwrap();
    assert!(list.len() >= 12);
    for cat in ["Beginner", "Building", "Administration", "Community"] {
        assert!(list.iter().any(|g| g["category"] == cat), "{cat}");
    }
    for g in list {
        assert!(["easy", "intermediate", "advanced"].contains(&g["difficulty"].as_str().unwrap()));
        assert!(g["tags"].is_array());
    }
}

#[tokio::test]
async fn health_reports_version_and_a_fixed_start_time() {
    let server = Server::start();
    let c = client();
    let first = json(c.get(server.url("/api/health")).send().await.unwrap()).await;
    assert_eq!(first["status"], "ok");
    assert_eq!(first["database"], "ok");
    assert_eq!(first["version"], env!("CARGO_PKG_VERSION"));
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let second = json(c.get(server.url("/api/health")).send().await.unwrap()).await;
    assert_eq!(first, second, "the health body must not tick");
}

#[tokio::test]
async fn page_views_and_visitors_are_counted_on_the_server() {
    let server = Server::start();
    let c = client();
    let before = json(c.get(server.url("/api/stats")).send().await.unwrap()).await;
    assert_eq!(before["users"], 0);
    assert_eq!(before["pageViews"], 0);
    assert_eq!(before["monthlyVisitors"], 0);
    assert!(before["discordMembers"].is_null());
    for path in ["/", "/commands", "/guides"] {
        c.get(server.url(path)).header("user-agent", "Mozilla/5.0 test").send().await.unwrap();
    }
    c.get(server.url("/nope")).header("user-agent", "Mozilla/5.0 test").send().await.unwrap();
    let res = c
        .post(server.url("/api/pageview"))
        .header("user-agent", "Mozilla/5.0 other")
        .json(&serde_json::json!({"path": "/guides"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let mut after = serde_json::Value::Null;
    for _ in 0..40 {
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        after = json(c.get(server.url("/api/stats")).send().await.unwrap()).await;
        if after["pageViews"] == 4 {
            break;
        }
    }
    assert_eq!(after["pageViews"], 4, "3 shell loads + 1 beacon; the 404 is not a view: {after}");
    assert_eq!(after["monthlyVisitors"], 2, "two user agents from one IP are two visitors: {after}");
}

#[tokio::test]
async fn default_banner_uses_the_default_colours() {
    let server = Server::start();
    let body = json(client().get(server.url("/api/admin/active-banner")).send().await.unwrap()).await;
    assert_eq!(body["banner"]["isActive"], false);
    assert_eq!(body["banner"]["backgroundColor"], "#7c3aed");
    assert_eq!(body["banner"]["textColor"], "#ffffff");
    assert_eq!(body["banner"]["borderColor"], "#8b5cf6");
    assert!(body["advertisement"].is_null());
}
