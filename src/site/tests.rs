//! The site file: loading, validation and the served JSON.

use super::*;

#[test]
fn bundled_site_file_is_valid() {
    let site = load(None).unwrap();
    let home = site.pages.iter().find(|p| p.path == "/").unwrap();
    assert_eq!(home.document_title, format!("{} | {}", home.title, site.name));
}

fn pages(paths: &[&str]) -> Vec<PageText> {
    paths
        .iter()
        .map(|p| PageText {
            path: p.to_string(),
            title: "T".into(),
            description: "D".into(),
            index: true,
            document_title: String::new(),
        })
        .collect()
}

#[test]
fn every_route_needs_texts_and_texts_need_a_route() {
    let all: Vec<&str> = crate::http::spa::ROUTES.iter().map(|r| r.path).collect();
    assert!(validate_pages(&pages(&all)).is_ok());
    let err = validate_pages(&pages(&all[1..])).unwrap_err();
    assert!(err.contains("has no [[pages]] entry") && err.contains(&format!("{:?}", all[0])), "{err}");
    let mut extra = all.clone();
    extra.push("/not-a-route");
    let err = validate_pages(&pages(&extra)).unwrap_err();
    assert!(err.contains("\"/not-a-route\" is not a route"), "{err}");
    let mut twice = all.clone();
    twice.push(all[0]);
    assert!(validate_pages(&pages(&twice)).unwrap_err().contains("twice"));
}

#[test]
fn budgets_above_robloxs_probed_limits_need_the_proxy_switch() {
    let bundled = include_str!("../../data/site.toml");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("site.toml");
    let high = bundled.replacen("[roblox.budgets]\n", "[roblox.budgets]\n\"users/v1/users/{id}\" = 3000\n", 1);
    std::fs::write(&path, &high).unwrap();
    let err = load(Some(&path)).unwrap_err().to_string();
    assert!(err.contains("probed limit of 30") && err.contains("budgets_above_probed_limits"), "{err}");
    let behind_proxy = high.replacen("budgets_above_probed_limits = false", "budgets_above_probed_limits = true", 1);
    std::fs::write(&path, behind_proxy).unwrap();
    assert_eq!(load(Some(&path)).unwrap().roblox.budgets["users/v1/users/{id}"], 3000);
}

#[test]
fn every_era_names_one_generation_code() {
    let bundled = include_str!("../../data/site.toml");
    let site = load(None).unwrap();
    let eras: Vec<_> = site.classification.generations.iter().map(|g| (g.name.as_str(), g.code.as_str())).collect();
    assert_eq!(eras, [("OG", "VETERAN"), ("Oldgen", "OLDGEN"), ("Midgen", "MIDGEN"), ("Newgen", "NEWGEN")]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("site.toml");
    for (from, to, problem) in [
        ("code = \"VETERAN\"\n", "", "missing field `code`"),
        ("code = \"VETERAN\"", "code = \"Veteran\"", "unknown variant `Veteran`"),
        ("code = \"MIDGEN\"", "code = \"OLDGEN\"", "code \"OLDGEN\" of \"Midgen\" is already another era's"),
        ("name = \"Midgen\"", "name = \"og\"", "name \"og\" is another era's name or code"),
        ("name = \"Midgen\"", "name = \"Newgen\"", "name \"Newgen\" is another era's name or code"),
    ] {
        assert!(bundled.contains(from), "{from}");
        std::fs::write(&path, bundled.replacen(from, to, 1)).unwrap();
        let err = load(Some(&path)).unwrap_err().to_string();
        assert!(err.contains(problem), "{from} -> {to}: {err}");
    }
}

#[test]
fn showcase_images_are_site_paths_or_web_addresses_in_one_piece() {
    let site = load(None).unwrap();
    assert!(site.showcase.iter().all(|s| s.image.as_deref().is_some_and(|i| i.starts_with("/showcase/"))));
    for good in ["/showcase/castle.svg", "/uploads/a.webp", "https://img.example.org/a.png?x=1"] {
        assert!(validate_image_address(good).is_ok(), "{good}");
    }
    for bad in ["castle.svg", "//evil.example/a.png", "javascript:alert(1)", "/a b.png", "/a\".png", "/a<b"] {
        assert!(validate_image_address(bad).is_err(), "{bad}");
    }
    let bundled = include_str!("../../data/site.toml");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("site.toml");
    std::fs::write(&path, bundled.replacen("image = \"/showcase/", "image = \"data:/showcase/", 1)).unwrap();
    let err = load(Some(&path)).unwrap_err().to_string();
    assert!(err.contains("showcase.image must be a path on this site"), "{err}");
}

#[test]
fn link_card_texts_use_only_their_placeholders_and_fill_them_once() {
    let site = load(None).unwrap();
    assert!(site.link_cards.validate().is_ok());
    assert!(LinkCards::default().validate().is_ok());
    let typo = LinkCards { guide_title: "{titel}".into(), ..LinkCards::default() };
    assert!(typo.validate().unwrap_err().contains("guide_title: unknown placeholder {titel}"));
    let foreign = LinkCards { command_title: "{username}".into(), ..LinkCards::default() };
    assert!(foreign.validate().unwrap_err().contains("{username}"));
    let open = LinkCards { player_title: "{username".into(), ..LinkCards::default() };
    assert!(open.validate().is_err());
    let none = LinkCards { pictures_in_memory: 0, ..LinkCards::default() };
    assert!(none.validate().is_err());
    // A value holding braces is not filled again.
    assert_eq!(
        LinkCards::fill("{name} {name}: {usage} {x", &[("name", "{usage}"), ("usage", ":a <b>")]),
        "{usage} {usage}: :a <b> {x"
    );
}

#[test]
fn base_url_is_an_origin_only() {
    for ok in ["https://fans.example.org", "http://127.0.0.1:8080", "https://fans.example.org/", "https://[::1]:8443"] {
        assert!(validate_base_url(ok).is_ok(), "{ok}");
    }
    for bad in [
        "fans.example.org",
        "https://fans.example.org/x",
        "https://a\"b",
        "https://",
        "ftp://x",
        "https://u@x",
        "https://x?q",
    ] {
        assert!(validate_base_url(bad).is_err(), "{bad}");
    }
}

#[test]
fn analytics_windows_are_read_and_checked() {
    let bundled = include_str!("../../data/site.toml");
    let site = load(None).unwrap();
    let a = &site.analytics;
    assert_eq!((a.key_hourly_days, a.key_daily_days, a.key_address_days, a.key_addresses), (7, 400, 30, 20));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("site.toml");
    for (bad, says) in [
        ("key_hourly_days = 0", "key_hourly_days must be 1 to 90"),
        ("key_daily_days = 7", "key_daily_days must be 31 to 3660"),
        ("key_address_days = 0", "key_address_days must be 1 to 400"),
        ("key_addresses = 5000", "key_addresses must be 0 to 1000"),
        ("key_hours = 3", "unknown field `key_hours`"),
    ] {
        let key = bad.split(' ').next().unwrap();
        let text: String = bundled
            .lines()
            .map(|l| if l.starts_with(&format!("{key} =")) { bad.to_string() } else { l.to_string() })
            .collect::<Vec<_>>()
            .join("\n");
        let text =
            if text.contains(bad) { text } else { text.replacen("[analytics]\n", &format!("[analytics]\n{bad}\n"), 1) };
        std::fs::write(&path, text).unwrap();
        let err = load(Some(&path)).unwrap_err().to_string();
        assert!(err.contains(says), "{bad}: {err}");
    }
}
