//! The fake Discord of the tests as a program, for the e2e suite and scripts/bench: prints
//! `fake-discord listening on http://127.0.0.1:PORT` and serves until killed. The API base for
//! fanhub is that address + `/api/v10`; `/_fake/post`, `/_fake/mode`, `/_fake/members` and
//! `/_fake/webhooks` drive it. `--seed CHANNEL_GAME,CHANNEL_COMMUNITY` posts sample messages.

#[path = "../tests/testsuite/common/fake_discord.rs"]
mod fake_discord;

use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let fake = fake_discord::FakeDiscord::start().await;
    if let Some(i) = args.iter().position(|a| a == "--seed") {
        let channels: Vec<u64> = args[i + 1].split(',').map(|c| c.parse().expect("channel ids")).collect();
        seed(&fake, channels[0], channels.get(1).copied().unwrap_or(channels[0]));
    }
    if let Some(i) = args.iter().position(|a| a == "--members") {
        fake.set_members(Some(args[i + 1].parse().expect("a member count")));
    }
    println!("fake-discord listening on {}", fake.base.trim_end_matches("/api/v10"));
    std::future::pending::<()>().await;
}

fn seed(fake: &fake_discord::FakeDiscord, game: u64, community: u64) {
    fake.post(
        game,
        "Announcements",
        true,
        "",
        json!([{"title": "Update 2.4 is live",
        "description": "Added the desert map and fixed the voting timer on large servers."}]),
    );
    fake.post(
        game,
        "Announcements",
        true,
        "**Weekend event:** double build points from Friday 18:00 UTC to Sunday night! <@&1> :tada:",
        json!([]),
    );
    fake.post(
        game,
        "Announcements",
        true,
        "Maintenance on Tuesday at 09:00 UTC for about 30 minutes while servers restart.",
        json!([]),
    );
    fake.post(community, "maria", false, "lol", json!([]));
    fake.post(
        community,
        "kenji",
        false,
        "Our clan finished the floating castle build after three weeks of work, screenshots in the gallery!",
        json!([]),
    );
    fake.post(
        community,
        "ana",
        false,
        "The election on server 4 ended in a tie and was decided by a rematch vote",
        json!([]),
    );
    fake.post(community, "li", false, "https://cdn.example/clip.mp4", json!([]));
}
