//! Figures for scripts/bench's `discord` section, printed one per line as `name<TAB>value<TAB>goal`:
//! the extractive summary of 1,000 messages, and `/check` interactions over loopback HTTP
//! (signature included) for a cached player and deferred for an uncached one, against a server
//! built in-process with a stand-in player lookup and the fake Discord for the webhook.

#[path = "../tests/testsuite/common/fake_discord.rs"]
mod fake_discord;

use std::sync::Arc;
use std::time::{Duration, Instant};

use fanhub::config::{Options, Secrets};
use fanhub::discord::DiscordConfig;
use fanhub::discord::interactions::{LookupFuture, PlayerCard, PlayerLookup};
use fanhub::discord::store::StoredMessage;
use ring::signature::{Ed25519KeyPair, KeyPair};

const WORDS: &[&str] = &[
    "update", "server", "build", "castle", "election", "fixed", "added", "map", "lol", "gg", "tonight", "event",
    "timer", "admin", "vote", "new", "the", "and", "with", "for", "players", "tools", "paint", "weekend",
];

fn messages(n: u64) -> Vec<StoredMessage> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..n)
        .map(|i| {
            let len = 2 + next() % 30;
            let mut content: Vec<String> =
                (0..len).map(|_| WORDS[(next() % WORDS.len() as u64) as usize].to_string()).collect();
            if i % 7 == 0 {
                content.push("<@123> https://cdn.example/x.png :fire: 🎉.".into());
            }
            StoredMessage {
                channel_id: 1,
                id: 1_000_000 + i,
                author: format!("user{}", i % 40),
                from_bot: i % 25 == 0,
                content: content.join(" ") + ". " + if i % 3 == 0 { "More soon!" } else { "" },
                embeds: vec![],
                posted_at: "2026-11-23T06:00:00Z".into(),
                edited_at: None,
            }
        })
        .collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

struct StandIn;

fn card(username: &str) -> PlayerCard {
    PlayerCard {
        username: username.into(),
        display_name: username.into(),
        user_id: 1,
        avatar_url: None,
        profile_url: "https://www.roblox.com/users/1/profile".into(),
        account_age_days: 1000,
        generation: "OLDGEN".into(),
        generation_label: "Oldgen".into(),
        classification: "Veteran".into(),
        elc_badges: Some((2, 5)),
        note: None,
    }
}

impl PlayerLookup for StandIn {
    fn cached(&self, username: &str) -> Option<PlayerCard> {
        username.starts_with("Cached").then(|| card(username))
    }
    fn lookup(&self, username: &str) -> LookupFuture {
        let username = username.to_string();
        // An uncached lookup that takes as long as a slow Roblox answer.
        Box::pin(async move {
            tokio::time::sleep(Duration::from_secs(2)).await;
            Ok(card(&username))
        })
    }
}

#[tokio::main]
async fn main() {
    let messages = messages(1000);
    let mut runs = Vec::new();
    for _ in 0..30 {
        let started = Instant::now();
        let lines = fanhub::discord::extractive::summarise(&messages, 6);
        runs.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(!lines.is_empty());
    }
    runs.sort_by(f64::total_cmp);
    println!("extractive summary of 1,000 messages (median of 30)\t{:.1} ms\tgoal < 50 ms", percentile(&runs, 0.5));
    println!("extractive summary of 1,000 messages (slowest of 30)\t{:.1} ms\t", runs[runs.len() - 1]);

    fanhub::llm::install_crypto();
    let fake = fake_discord::FakeDiscord::start().await;
    let pair = Ed25519KeyPair::from_seed_unchecked(&[5u8; 32]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d");
    std::fs::create_dir_all(data.join("uploads")).unwrap();
    let options = Options::for_data_dir(&data);
    let discord = DiscordConfig {
        api_base: Some(fake.base.clone()),
        public_key: Some(hex::encode(pair.public_key().as_ref())),
        ..Default::default()
    };
    let state =
        fanhub::server::build_state(options, Secrets { discord, ..Default::default() }, data, Default::default())
            .unwrap();
    state.discord.set_player_lookup(Arc::new(StandIn));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/api/discord/interactions", listener.local_addr().unwrap());
    tokio::spawn(fanhub::server::serve(state, listener, std::future::pending()));
    let client = reqwest::Client::new();
    let send = |username: String, n: usize| {
        let ts = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs().to_string();
        let body =
            serde_json::json!({"type": 2, "id": n.to_string(), "application_id": "1", "token": format!("tok{n}"),
            "data": {"name": "check", "options": [{"name": "username", "value": username}]}})
            .to_string();
        let mut msg = ts.as_bytes().to_vec();
        msg.extend_from_slice(body.as_bytes());
        let sig = hex::encode(pair.sign(&msg).as_ref());
        client.post(&url).header("x-signature-ed25519", sig).header("x-signature-timestamp", ts).body(body).send()
    };
    let mut cached = Vec::new();
    for n in 0..2000 {
        let started = Instant::now();
        let res = send(format!("Cached{}", n % 50), n).await.unwrap();
        let body: serde_json::Value = res.json().await.unwrap();
        cached.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(body["type"], 4);
    }
    cached.sort_by(f64::total_cmp);
    println!("/check, cached player, signed, over HTTP: p50 (2,000 sequential)\t{:.2} ms\t", percentile(&cached, 0.5));
    println!("/check, cached player, signed, over HTTP: p99\t{:.2} ms\tgoal < 100 ms", percentile(&cached, 0.99));
    let mut deferred = Vec::new();
    for n in 0..200 {
        let started = Instant::now();
        let res = send(format!("Slow{n}"), 10_000 + n).await.unwrap();
        let body: serde_json::Value = res.json().await.unwrap();
        deferred.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(body["type"], 5);
    }
    deferred.sort_by(f64::total_cmp);
    println!("/check, uncached player: deferred reply p99 (200)\t{:.2} ms\tgoal < 500 ms", percentile(&deferred, 0.99));
    println!("/check, uncached player: deferred reply slowest\t{:.2} ms\t", deferred[deferred.len() - 1]);
}
