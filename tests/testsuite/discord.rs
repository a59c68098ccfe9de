//! Discord against a fake Discord and a fake language model started by the test (never the
//! internet): polling with after=, stored history and summaries, rate limits, a bad token, the
//! missing message-content intent, a hang, the LLM's failures falling back to the extractive
//! summary, the served endpoints, the member count, the interactions endpoint and the
//! register-commands CLI.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::fake_discord::{FakeDiscord, Mode, TOKEN};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use fanhub::config::{Options, Secrets};
use fanhub::discord::DiscordConfig;
use fanhub::discord::interactions::{LookupError, LookupFuture, PlayerCard, PlayerLookup};
use fanhub::llm::{LlmClient, LlmConfig};
use fanhub::state::AppState;
use ring::signature::{Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};

const GAME: u64 = 111_111_111_111_111_111;
const COMMUNITY: u64 = 222_222_222_222_222_222;

fn site_file(dir: &std::path::Path, extra: &str) -> PathBuf {
    let bundled = include_str!("../../data/site.toml");
    let start = bundled.find("[updates.game]").unwrap();
    let end = bundled.find("# The head of each page").unwrap();
    let text = format!(
        "{}[updates.game]\ntitle = \"Test Game\"\ngame_channels = [\"{GAME}\"]\ncommunity_channels = [\"{COMMUNITY}\"]\n\n[discord]\n{extra}\n\n{}",
        &bundled[..start],
        &bundled[end..]
    )
    .replacen("updates_secs = 60", "updates_secs = 15", 1)
    .replacen("members_secs = 600", "members_secs = 60", 1);
    assert!(text.contains("updates_secs = 15") && text.contains("members_secs = 60"), "the bundled [poll] table");
    let path = dir.join("site.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn discord_config(fake: &FakeDiscord, token: &str) -> DiscordConfig {
    DiscordConfig { token: Some(token.into()), api_base: Some(fake.base.clone()), ..Default::default() }
}

/// The state of a server (not serving) whose poller the test drives by hand.
fn state(dir: &std::path::Path, discord: DiscordConfig, llm: Option<LlmConfig>) -> AppState {
    fanhub::llm::install_crypto();
    let data = dir.join("data");
    std::fs::create_dir_all(data.join("uploads")).unwrap();
    let options = Options { site: Some(site_file(dir, "invite_code = \"fans\"")), ..Options::for_data_dir(&data) };
    let secrets = Secrets { discord, llm, ..Default::default() };
    fanhub::server::build_state(options, secrets, data, Default::default()).unwrap()
}

fn served(state: &AppState) -> Value {
    serde_json::from_slice::<Value>(&state.discord.all_json.get().bytes).unwrap()["products"][0].clone()
}

fn seed(fake: &FakeDiscord) {
    fake.post(
        GAME,
        "Announcements",
        true,
        "",
        json!([{"title": "Update 2.4 is live",
        "description": "Added the desert map and fixed the voting timer on large servers."}]),
    );
    fake.post(
        GAME,
        "Announcements",
        true,
        "Maintenance on Tuesday at 09:00 UTC for about 30 minutes while servers restart.",
        json!([]),
    );
    fake.post(COMMUNITY, "maria", false, "lol", json!([]));
    fake.post(
        COMMUNITY,
        "kenji",
        false,
        "Our clan finished the floating castle build after three weeks of work!",
        json!([]),
    );
}

#[tokio::test]
async fn the_poller_reads_after_the_newest_id_stores_and_summarises_only_on_change() {
    let fake = FakeDiscord::start().await;
    seed(&fake);
    let dir = tempfile::tempdir().unwrap();
    let state = state(dir.path(), discord_config(&fake, TOKEN), None);
    assert_eq!(served(&state)["gameUpdates"], json!([]), "nothing before the first poll");

    assert_eq!(fanhub::discord::poller::poll_once(&state).await, Ok(4));
    let updates = served(&state);
    assert_eq!(updates["configured"], true);
    assert_eq!(
        updates["gameUpdates"],
        json!([
            "Maintenance on Tuesday at 09:00 UTC for about 30 minutes while servers restart.",
            "Update 2.4 is live: Added the desert map and fixed the voting timer on large servers."
        ])
    );
    assert_eq!(
        updates["communityHighlights"],
        json!(["Our clan finished the floating castle build after three weeks of work!"])
    );
    assert_eq!(updates["gameUpdatesSource"]["source"], "extractive");
    let first_generated = updates["gameUpdatesSource"]["generatedAt"].clone();

    let calls = fake.calls();
    assert!(calls.iter().all(|c| c.2.as_deref() == Some("Bot fake-bot-token")), "{calls:?}");
    let ua = calls[0].3.clone().unwrap();
    assert!(ua.starts_with("DiscordBot (") && ua.contains(env!("CARGO_PKG_VERSION")), "{ua}");
    assert!(calls[0].1.contains("limit=Some(50)&after=None"), "{:?}", calls[0]);

    // New message in the game channel only: read with after=, only that list is summarised again.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let newest = fake.post(
        GAME,
        "Announcements",
        true,
        "New season of building contests starts this Friday with new themes.",
        json!([]),
    );
    assert_eq!(fanhub::discord::poller::poll_once(&state).await, Ok(1));
    let calls = fake.calls();
    let game_call = calls.iter().rev().find(|c| c.1.contains(&format!("/channels/{GAME}/"))).unwrap();
    assert!(game_call.1.contains("limit=Some(100)&after=Some("), "{game_call:?}");
    let updates = served(&state);
    assert!(updates["gameUpdates"][0].as_str().unwrap().starts_with("New season"), "{updates}");
    assert_ne!(updates["gameUpdatesSource"]["generatedAt"], first_generated);
    let community_at = updates["communityHighlightsSource"]["generatedAt"].clone();
    // Nothing new: nothing re-summarised.
    assert_eq!(fanhub::discord::poller::poll_once(&state).await, Ok(0));
    assert_eq!(served(&state)["communityHighlightsSource"]["generatedAt"], community_at);
    let (status, detail) = state.discord.health();
    assert_eq!(status, "ok", "{detail}");

    // A restart serves the stored summary before any poll, and resumes after the newest id.
    drop(state);
    let again = self::state(dir.path(), discord_config(&fake, TOKEN), None);
    assert_eq!(served(&again)["gameUpdates"], updates["gameUpdates"]);
    let before = fake.calls().len();
    assert_eq!(fanhub::discord::poller::poll_once(&again).await, Ok(0));
    let resumed: Vec<_> = fake.calls()[before..].iter().map(|c| c.1.clone()).collect();
    assert!(
        resumed.iter().all(|p| p.contains(&format!("after=Some({newest})")) || p.contains(&format!("{COMMUNITY}"))),
        "{resumed:?}"
    );
}

#[tokio::test]
async fn rate_limits_are_honoured_and_bad_tokens_stop_the_calls() {
    let fake = FakeDiscord::start().await;
    seed(&fake);
    let dir = tempfile::tempdir().unwrap();
    let state = state(dir.path(), discord_config(&fake, TOKEN), None);

    // A short 429 (bucket, then global scope) is waited out and retried.
    fake.set_mode(Mode::RateLimited, 1);
    let started = Instant::now();
    assert!(fanhub::discord::poller::poll_once(&state).await.is_ok());
    assert!(started.elapsed() >= Duration::from_millis(190), "waited retry_after");
    fake.set_mode(Mode::GlobalRateLimited, 1);
    assert!(fanhub::discord::poller::poll_once(&state).await.is_ok());
    let throttled: u64 =
        state.jobs.upstream_snapshot().iter().filter(|(s, _, _)| s == "discord").map(|(_, _, c)| c.throttled).sum();
    assert_eq!(throttled, 2);

    // A long one fails the poll, and the next poll does not call while the wait lasts.
    fake.inner.lock().unwrap().retry_after = 30.0;
    fake.set_mode(Mode::GlobalRateLimited, 5);
    let err = fanhub::discord::poller::poll_once(&state).await.unwrap_err();
    assert!(err.contains("rate limited"), "{err}");
    let before = fake.calls().len();
    let err = fanhub::discord::poller::poll_once(&state).await.unwrap_err();
    assert!(err.contains("rate limited"), "{err}");
    assert_eq!(fake.calls().len(), before, "no call during a global wait");
    assert!(served(&state)["gameUpdates"].as_array().unwrap().len() == 2, "the last summary stays served");

    // A bad token: one 401, then no more calls for a while; the health check says so.
    let other_dir = tempfile::tempdir().unwrap();
    let fake2 = FakeDiscord::start().await;
    let bad = self::state(other_dir.path(), discord_config(&fake2, "wrong"), None);
    let err = fanhub::discord::poller::poll_once(&bad).await.unwrap_err();
    assert!(err.contains("401"), "{err}");
    let after_first = fake2.calls().len();
    assert!(after_first <= 2, "one 401 per channel at most");
    assert!(fanhub::discord::poller::poll_once(&bad).await.is_err());
    assert_eq!(fake2.calls().len(), after_first, "the refused token is not sent again");
    let (status, detail) = bad.discord.health();
    assert_eq!(status, "error");
    assert!(detail.contains("FANHUB_DISCORD_TOKEN") && !detail.contains("wrong"), "{detail}");
    assert!(bad.discord.client.invalid_requests() <= 2);
}

#[tokio::test]
async fn empty_contents_are_reported_with_the_intent_fix_and_a_hang_times_out() {
    let fake = FakeDiscord::start().await;
    seed(&fake);
    fake.set_mode(Mode::NoIntent, 0);
    let dir = tempfile::tempdir().unwrap();
    let state = state(dir.path(), discord_config(&fake, TOKEN), None);
    fanhub::discord::poller::poll_once(&state).await.unwrap();
    let (status, detail) = state.discord.health();
    assert_eq!(status, "error");
    assert!(detail.contains("Message Content Intent") && detail.contains(&COMMUNITY.to_string()), "{detail}");
    assert!(!detail.contains(&GAME.to_string()), "bot posts keep their contents: {detail}");
    assert_eq!(served(&state)["communityHighlights"], json!([]));

    fake.set_mode(Mode::Hang, 0);
    fake.post(GAME, "Announcements", true, "Another update", json!([]));
    let started = Instant::now();
    let err = fanhub::discord::poller::poll_once(&state).await.unwrap_err();
    assert!(err.contains("did not answer"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(25));
    assert_eq!(served(&state)["gameUpdates"].as_array().unwrap().len(), 2, "still served");
}

#[derive(Clone, Copy, PartialEq)]
enum LlmMode {
    Good,
    BrokenJson,
    Cut,
    BadRequest,
    Hang,
}

/// The fake model's mode and the request bodies it received.
type LlmFakeState = (Arc<Mutex<LlmMode>>, Arc<Mutex<Vec<Value>>>);

async fn start_llm() -> (String, Arc<Mutex<LlmMode>>, Arc<Mutex<Vec<Value>>>) {
    let mode = Arc::new(Mutex::new(LlmMode::Good));
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    async fn chat(State((mode, seen)): State<LlmFakeState>, Json(body): Json<Value>) -> Response {
        seen.lock().unwrap().push(body);
        let answer = |content: &str, finish: &str| {
            Json(json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}]}))
                .into_response()
        };
        let m = *mode.lock().unwrap();
        match m {
            LlmMode::Good => {
                answer(r#"{"lines": ["Update 2.4 adds the desert map.", "Maintenance on Tuesday 09:00 UTC."]}"#, "stop")
            }
            LlmMode::BrokenJson => answer(r#"{"lines": ["half"#, "stop"),
            LlmMode::Cut => answer(r#"{"lines": ["a long"#, "length"),
            LlmMode::BadRequest => {
                (StatusCode::BAD_REQUEST, Json(json!({"error": {"message": "bad"}}))).into_response()
            }
            LlmMode::Hang => {
                tokio::time::sleep(Duration::from_secs(30)).await;
                StatusCode::OK.into_response()
            }
        }
    }
    let app = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(chat))
        .with_state((mode.clone(), seen.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, mode, seen)
}

#[tokio::test]
async fn the_language_model_summarises_in_json_mode_and_every_failure_falls_back_to_extractive() {
    use fanhub::discord::summarise::{Kind, summarise};
    let (base, mode, seen) = start_llm().await;
    fanhub::llm::install_crypto();
    let llm = LlmClient::new(
        LlmConfig { base_url: base.clone(), model: "tiny".into(), key: Some("sk-x".into()) },
        Duration::from_millis(700),
    );
    let messages: Vec<_> = (0..400u64)
        .rev()
        .map(|i| fanhub::discord::store::StoredMessage {
            channel_id: GAME,
            id: 1000 + i,
            author: "mod".into(),
            from_bot: true,
            content: format!("Patch {i}: fixed the election timer and added new paint colours for builders."),
            embeds: vec![],
            posted_at: "2026-11-23T06:00:00Z".into(),
            edited_at: None,
        })
        .collect();
    let (summary, failure) = summarise(Some(&llm), Kind::Game, &messages, 1).await;
    assert_eq!(failure, None);
    assert_eq!(summary.source.as_str(), "ai");
    assert_eq!(summary.model.as_deref(), Some("tiny"));
    assert_eq!(summary.lines, vec!["Update 2.4 adds the desert map.", "Maintenance on Tuesday 09:00 UTC."]);
    let body = seen.lock().unwrap()[0].clone();
    assert_eq!(body["response_format"]["type"], "json_object");
    assert!(body["messages"][0]["content"].as_str().unwrap().contains("JSON"));
    let prompt = body["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.len() < fanhub::discord::summarise::TOKEN_BUDGET * 4 + 100, "token budget: {}", prompt.len());
    assert!(prompt.contains("Patch 399:") && !prompt.contains("Patch 0:"), "the newest messages go first");

    for m in [LlmMode::BrokenJson, LlmMode::Cut, LlmMode::BadRequest, LlmMode::Hang] {
        *mode.lock().unwrap() = m;
        let started = Instant::now();
        let (summary, failure) = summarise(Some(&llm), Kind::Game, &messages, 1).await;
        assert!(failure.is_some());
        assert_eq!(summary.source.as_str(), "extractive");
        assert!(!summary.lines.is_empty() && summary.lines.len() <= 6);
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    // Through the poller: the served answer names the model.
    *mode.lock().unwrap() = LlmMode::Good;
    let fake = FakeDiscord::start().await;
    seed(&fake);
    let dir = tempfile::tempdir().unwrap();
    let state = state(
        dir.path(),
        discord_config(&fake, TOKEN),
        Some(LlmConfig { base_url: base, model: "tiny".into(), key: None }),
    );
    fanhub::discord::poller::poll_once(&state).await.unwrap();
    let updates = served(&state);
    assert_eq!(updates["gameUpdatesSource"]["source"], "ai");
    assert_eq!(updates["gameUpdatesSource"]["model"], "tiny");
}

#[tokio::test]
async fn the_endpoints_serve_from_memory_with_etags_and_the_member_count_reaches_the_stats() {
    let fake = FakeDiscord::start().await;
    seed(&fake);
    fake.set_members(Some(1234));
    let dir = tempfile::tempdir().unwrap();
    let site = site_file(dir.path(), "invite_code = \"fans\"");
    let server = crate::common::Server::launch(crate::common::Launch {
        args: vec!["--site".into(), site.display().to_string()],
        envs: vec![("FANHUB_DISCORD_TOKEN".into(), TOKEN.into()), ("FANHUB_DISCORD_API".into(), fake.base.clone())],
        data_dir: None,
    });
    let c = crate::common::client();
    let mut updates = Value::Null;
    for _ in 0..100 {
        updates = crate::common::json(c.get(server.url("/api/discord/game-updates")).send().await.unwrap()).await;
        if updates["gameUpdates"].as_array().is_some_and(|l| !l.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(updates["gameUpdates"].as_array().unwrap().len(), 2, "{updates}");
    let res = c.get(server.url("/api/discord/game-updates")).send().await.unwrap();
    let etag = res.headers()["etag"].clone();
    let res = c.get(server.url("/api/discord/game-updates")).header("if-none-match", etag).send().await.unwrap();
    assert_eq!(res.status(), 304);
    for unknown in ["/api/discord/other-updates", "/api/discord/game", "/api/discord/-updates"] {
        assert_eq!(c.get(server.url(unknown)).send().await.unwrap().status(), 404, "{unknown}");
    }
    let site_json = crate::common::json(c.get(server.url("/api/site")).send().await.unwrap()).await;
    assert_eq!(site_json["updates"], json!({"game": {"title": "Test Game"}}), "channel ids stay private");
    let key = site_json["publicApiKey"].as_str().unwrap().to_string();
    let v1 = crate::common::json(
        c.get(server.url("/api/v1/discord-updates")).header("x-api-key", key).send().await.unwrap(),
    )
    .await;
    assert_eq!(v1["configured"], true);
    assert_eq!(v1["products"][0], updates);

    let mut members = Value::Null;
    for _ in 0..100 {
        members =
            crate::common::json(c.get(server.url("/api/stats")).send().await.unwrap()).await["discordMembers"].clone();
        if members == 1234 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(members, 1234);
    assert!(!server.stderr().contains(TOKEN), "the token is never logged");

    // Without Discord: not configured, empty lists, no member count, never a 500.
    let plain = crate::common::Server::start();
    let updates = crate::common::json(c.get(plain.url("/api/discord/game-updates")).send().await.unwrap()).await;
    assert_eq!(updates["configured"], false);
    assert_eq!((updates["gameUpdates"].clone(), updates["communityHighlights"].clone()), (json!([]), json!([])));
    let stats = crate::common::json(c.get(plain.url("/api/stats")).send().await.unwrap()).await;
    assert_eq!(stats["discordMembers"], Value::Null);
}

struct FakeLookup;

fn card(username: &str) -> PlayerCard {
    PlayerCard {
        username: username.into(),
        display_name: "Builder".into(),
        user_id: 42,
        avatar_url: Some("https://tr.rbxcdn.example/a.png".into()),
        profile_url: "https://www.roblox.com/users/42/profile".into(),
        account_age_days: 900,
        generation: "OLDGEN".into(),
        generation_label: "Oldgen".into(),
        classification: "Veteran builder".into(),
        elc_badges: Some((3, 5)),
        note: None,
    }
}

impl PlayerLookup for FakeLookup {
    fn cached(&self, username: &str) -> Option<PlayerCard> {
        (username == "CachedOne").then(|| card(username))
    }
    fn lookup(&self, username: &str) -> LookupFuture {
        let username = username.to_string();
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            match username.as_str() {
                "Missing_Player" => Err(LookupError::NotFound),
                _ => Ok(card(&username)),
            }
        })
    }
}

struct Interactions {
    base: String,
    pair: Ed25519KeyPair,
    fake: FakeDiscord,
    _dir: tempfile::TempDir,
}

impl Interactions {
    async fn start(with_lookup: bool) -> Self {
        let fake = FakeDiscord::start().await;
        let pair = Ed25519KeyPair::from_seed_unchecked(&[3u8; 32]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = DiscordConfig {
            token: None,
            api_base: Some(fake.base.clone()),
            public_key: Some(hex::encode(pair.public_key().as_ref())),
            application_id: Some("555".into()),
        };
        let state = state(dir.path(), config, None);
        if with_lookup {
            state.discord.set_player_lookup(Arc::new(FakeLookup));
        } else {
            state.discord.set_player_lookup(Arc::new(fanhub::discord::interactions::NoLookups));
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(fanhub::server::serve(state, listener, std::future::pending()));
        Self { base, pair, fake, _dir: dir }
    }

    async fn send(&self, body: &str, signer: Option<&Ed25519KeyPair>, timestamp: i64) -> reqwest::Response {
        let ts = timestamp.to_string();
        let mut msg = ts.as_bytes().to_vec();
        msg.extend_from_slice(body.as_bytes());
        let sig = hex::encode(signer.unwrap_or(&self.pair).sign(&msg).as_ref());
        crate::common::client()
            .post(format!("{}/api/discord/interactions", self.base))
            .header("x-signature-ed25519", sig)
            .header("x-signature-timestamp", ts)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap()
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

fn command(name: &str, username: &str, token: &str) -> String {
    json!({"type": 2, "id": "9", "application_id": "555", "token": token,
        "data": {"name": name, "type": 1, "options": [{"name": "username", "type": 3, "value": username}]}})
    .to_string()
}

#[tokio::test]
async fn interactions_are_verified_and_answered_at_once_or_deferred() {
    let it = Interactions::start(true).await;
    let ping = r#"{"type":1,"id":"1","application_id":"555","token":"t"}"#;
    let res = it.send(ping, None, now()).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/json");
    assert_eq!(crate::common::json(res).await, json!({"type": 1}));

    // Bad, truncated, replayed, stale, another application's key, no headers: 401.
    let other = Ed25519KeyPair::from_seed_unchecked(&[4u8; 32]).unwrap();
    assert_eq!(it.send(ping, Some(&other), now()).await.status(), 401, "another application");
    let ts = now();
    let replayed = it.send(r#"{"type":1,"id":"2"}"#, None, ts).await;
    assert_eq!(replayed.status(), 200);
    assert_eq!(it.send(r#"{"type":1,"id":"2"}"#, None, ts).await.status(), 401, "replayed");
    assert_eq!(it.send(ping, None, now() - 400).await.status(), 401, "stale");
    let mut msg = now().to_string().into_bytes();
    msg.extend_from_slice(ping.as_bytes());
    let sig = hex::encode(it.pair.sign(&msg).as_ref());
    let c = crate::common::client();
    let url = format!("{}/api/discord/interactions", it.base);
    let truncated = c
        .post(&url)
        .header("x-signature-ed25519", &sig)
        .header("x-signature-timestamp", now().to_string())
        .body(&ping[..ping.len() - 3])
        .send()
        .await
        .unwrap();
    assert_eq!(truncated.status(), 401, "truncated body");
    let bad_sig = c
        .post(&url)
        .header("x-signature-ed25519", "00".repeat(64))
        .header("x-signature-timestamp", now().to_string())
        .body(ping)
        .send()
        .await
        .unwrap();
    assert_eq!(bad_sig.status(), 401);
    assert_eq!(c.post(&url).body(ping).send().await.unwrap().status(), 401, "no headers");
    let wrong_app = r#"{"type":1,"id":"3","application_id":"666","token":"t"}"#;
    assert_eq!(it.send(wrong_app, None, now()).await.status(), 401, "signed for another application id");

    // A cached player: answered at once, signature check included.
    let started = Instant::now();
    let res = it.send(&command("check", "CachedOne", "tok1"), None, now()).await;
    assert!(started.elapsed() < Duration::from_millis(100));
    let answer = crate::common::json(res).await;
    assert_eq!(answer["type"], 4);
    assert_eq!(answer["data"]["embeds"][0]["title"], "Builder (@CachedOne)");
    assert_eq!(answer["data"]["embeds"][0]["fields"][2]["value"], "3 of 5");

    // Not cached: deferred at once, then the embed is sent through the interaction webhook.
    let started = Instant::now();
    let res = it.send(&command("newgen", "Fresh_One", "tok2"), None, now()).await;
    assert!(started.elapsed() < Duration::from_millis(500));
    assert_eq!(crate::common::json(res).await, json!({"type": 5}));
    let mut hooks = Vec::new();
    for _ in 0..50 {
        hooks = it.fake.webhooks();
        if !hooks.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(hooks[0].0, "PATCH");
    assert_eq!(hooks[0].1, "/api/v10/webhooks/555/tok2/messages/@original");
    assert_eq!(hooks[0].2["embeds"][0]["fields"][3]["value"], "Veteran builder", "the full analysis");

    // A failed lookup: the public "thinking" reply is removed and the error goes ephemeral.
    let res = it.send(&command("check", "Missing_Player", "tok3"), None, now()).await;
    assert_eq!(crate::common::json(res).await, json!({"type": 5}));
    for _ in 0..50 {
        if it.fake.webhooks().len() >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let hooks = it.fake.webhooks();
    assert_eq!(hooks[1].0, "DELETE");
    assert_eq!(hooks[2].0, "POST");
    assert_eq!(hooks[2].2["flags"], 64);
    assert!(hooks[2].2["content"].as_str().unwrap().contains("No Roblox player is called Missing_Player"));

    // Bad input answers ephemerally at once.
    for (name, user) in [("check", "x"), ("check", "<script>"), ("unknown", "Builder")] {
        let answer = crate::common::json(it.send(&command(name, user, "t"), None, now()).await).await;
        assert_eq!(answer["type"], 4);
        assert_eq!(answer["data"]["flags"], 64, "{answer}");
    }
    assert_eq!(it.send("not json", None, now()).await.status(), 400);
    assert_eq!(it.send(r#"{"type":3}"#, None, now()).await.status(), 400);
}

#[tokio::test]
async fn without_lookups_or_a_public_key_the_commands_say_so() {
    let it = Interactions::start(false).await;
    let answer = crate::common::json(it.send(&command("check", "Builder", "t"), None, now()).await).await;
    assert_eq!(answer["data"]["flags"], 64);
    assert!(answer["data"]["content"].as_str().unwrap().contains("not available"));
    let plain = crate::common::Server::start();
    let res = crate::common::client().post(plain.url("/api/discord/interactions")).body("{}").send().await.unwrap();
    assert_eq!(res.status(), 404);
}

#[tokio::test]
async fn register_commands_puts_both_commands() {
    let fake = FakeDiscord::start().await;
    let base = fake.base.clone();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(crate::common::BIN)
            .args(["discord", "register-commands", "--application-id", "555"])
            .env("FANHUB_DISCORD_TOKEN", TOKEN)
            .env("FANHUB_DISCORD_API", base)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("registered /newgen and /check globally"), "{stdout}");
    let bad = std::process::Command::new(crate::common::BIN)
        .args(["discord", "register-commands", "--application-id", "12x"])
        .env("FANHUB_DISCORD_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// The real binary with the real Roblox client against the fake Roblox: the slash commands answer
/// with the site's own lookups (the same report, cache and budget as the newgen check).
#[tokio::test]
async fn the_slash_commands_answer_from_the_sites_roblox_lookups() {
    let roblox = crate::common::fake_roblox::FakeRoblox::start();
    roblox.set(|m| m.award_dates_need_cookie = false);
    let discord = FakeDiscord::start().await;
    let pair = Ed25519KeyPair::from_seed_unchecked(&[5u8; 32]).unwrap();
    let public_key = hex::encode(pair.public_key().as_ref());
    let dir = tempfile::tempdir().unwrap();
    let site = crate::common::edited_site_file(dir.path(), &[("elc = []", "elc = [2124001, 2124002, 2124003]")]);
    let envs = [
        ("FANHUB_ROBLOX_API", roblox.template()),
        ("FANHUB_DISCORD_API", discord.base.clone()),
        ("FANHUB_DISCORD_PUBLIC_KEY", public_key),
        ("FANHUB_DISCORD_APPLICATION_ID", "555".to_string()),
    ];
    let server = crate::common::Server::launch(crate::common::Launch {
        args: vec!["--site".into(), site.display().to_string()],
        envs: envs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        data_dir: None,
    });
    let it = Interactions { base: server.url(""), pair, fake: discord, _dir: dir };
    let fake_discord = &it.fake;
    let webhook = |n: usize| async move {
        for _ in 0..100 {
            let hooks = fake_discord.webhooks();
            if hooks.len() >= n {
                return hooks;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no webhook call {n}: {:?}", fake_discord.webhooks());
    };

    // Not cached yet: deferred within Discord's 3 s, completed with Roblox's data.
    let started = Instant::now();
    let res = it.send(&command("newgen", "VetAlpha", "tok1"), None, now()).await;
    assert!(started.elapsed() < Duration::from_millis(500));
    assert_eq!(crate::common::json(res).await, json!({"type": 5}));
    let hooks = webhook(1).await;
    assert_eq!((hooks[0].0.as_str(), hooks[0].1.as_str()), ("PATCH", "/api/v10/webhooks/555/tok1/messages/@original"));
    let embed = &hooks[0].2["embeds"][0];
    assert_eq!(embed["title"], "VetAlpha Display (@VetAlpha)", "{embed}");
    let field =
        |name: &str| embed["fields"].as_array().unwrap().iter().find(|f| f["name"] == name).unwrap()["value"].clone();
    assert_eq!(field("Generation"), "VETERAN (OG)", "the code, with the site's name for it");
    assert_eq!(field("ELC badges"), "3 of 3");
    assert_eq!(field("Classification"), "ELC Veteran");

    // The site's newgen check agrees, answered from the same cache: Roblox is not asked again.
    let profiles = roblox.calls(crate::common::fake_roblox::USER);
    let key = crate::common::json(crate::common::client().get(server.url("/api/site")).send().await.unwrap()).await["publicApiKey"]
        .as_str()
        .unwrap()
        .to_string();
    let site = crate::common::json(
        crate::common::client()
            .get(server.url("/api/newgen-check/VetAlpha"))
            .header("x-api-key", key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(field("User ID"), site["userId"].to_string());
    assert_eq!(
        field("Generation"),
        format!("{} ({})", site["generation"].as_str().unwrap(), site["generationLabel"].as_str().unwrap())
    );
    assert_eq!(roblox.calls(crate::common::fake_roblox::USER), profiles, "one lookup for the site and Discord");

    // Cached now: /check answers at once, signature check included.
    let started = Instant::now();
    let answer = crate::common::json(it.send(&command("check", "VetAlpha", "tok2"), None, now()).await).await;
    assert!(started.elapsed() < Duration::from_millis(100), "{:?}", started.elapsed());
    assert_eq!(answer["type"], 4);
    assert_eq!(answer["data"]["embeds"][0]["title"], "VetAlpha Display (@VetAlpha)");

    // A name Roblox does not know: the thinking reply goes, the error is ephemeral.
    let res = it.send(&command("check", "GhostPlayer", "tok3"), None, now()).await;
    assert_eq!(crate::common::json(res).await, json!({"type": 5}));
    let hooks = webhook(3).await;
    assert_eq!((hooks[1].0.as_str(), hooks[2].0.as_str()), ("DELETE", "POST"));
    assert_eq!(hooks[2].2["flags"], 64);
    assert!(
        hooks[2].2["content"].as_str().unwrap().contains("No Roblox player is called GhostPlayer"),
        "{:?}",
        hooks[2]
    );

    // Roblox down: an ephemeral error that says so, never a 500.
    roblox.set(|m| m.down = true);
    let res = it.send(&command("newgen", "MidPlayer", "tok4"), None, now()).await;
    assert_eq!(res.status(), 200);
    let hooks = webhook(5).await;
    assert_eq!(hooks[4].2["flags"], 64, "{:?}", hooks[4]);
}

/// Discord's answers are read with the same 4 MiB cap as Roblox's: an answer over it, announced
/// or endless, fails the call as unreadable well before the timeout.
#[tokio::test]
async fn an_answer_over_the_size_cap_is_refused_in_bounded_time() {
    use crate::common::{Oversized, start_oversized};
    use fanhub::discord::client::{DiscordClient, DiscordError};
    fanhub::llm::install_crypto();
    for kind in [Oversized::Announced, Oversized::Endless] {
        let base = start_oversized(kind).await;
        let discord = DiscordClient::new(&base, Some(TOKEN.into()), "https://site.example", Default::default());
        let started = Instant::now();
        let err = discord.channel_messages("1", None, 10).await.unwrap_err();
        assert!(matches!(&err, DiscordError::BadAnswer(m) if m.contains("longer than 4 MiB")), "{kind:?}: {err:?}");
        let err = discord.invite_members("abc").await.unwrap_err();
        assert!(matches!(&err, DiscordError::BadAnswer(m) if m.contains("longer than 4 MiB")), "{kind:?}: {err:?}");
        assert!(started.elapsed() < Duration::from_secs(8), "{kind:?}: {:?}", started.elapsed());
    }
}
