//! The fake Roblox as a program, for the UI's end-to-end tests and scripts/bench.
//!
//! `cargo build --release --example fake_roblox`, then
//! `target/release/examples/fake_roblox [--port N] [--modes JSON]` prints
//! `fake-roblox listening on http://127.0.0.1:PORT` and serves until killed. Point fanhub at it
//! with `FANHUB_ROBLOX_API=http://127.0.0.1:PORT/{service}`; for Open Cloud (`/cloud/v2/users/{id}`,
//! `.../inventory-items`, `/cloud/v2/groups/{id}`, `.../memberships`) with
//! `FANHUB_ROBLOX_OPEN_CLOUD_API=http://127.0.0.1:PORT` and the key `fake-open-cloud-key`
//! (sent as `x-api-key`). Open Cloud's published limits are enforced (users 1000, inventory 100,
//! memberships 300, group 150 a minute). Modes (see tests/testsuite/common/fake_roblox.rs):
//! `--modes '{"pendingThumbnails":2,"awardDatesNeedCookie":false}'` or the `FAKE_ROBLOX_MODES`
//! environment variable; `--no-cookie-needed`, `--down`, `--members N`, `--latency-ms N`,
//! `--open-cloud-scale F` (multiplies Open Cloud's limits) as shortcuts; change them while running
//! with `POST /_fake/modes` (a partial JSON object).

#[path = "../tests/testsuite/common/fake_roblox.rs"]
mod fake_roblox;

use std::io::Write;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut port = 0u16;
    let mut patch = serde_json::Map::new();
    if let Ok(env) = std::env::var("FAKE_ROBLOX_MODES") {
        merge(&mut patch, &env);
    }
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| fail(&format!("{name} needs a value")));
        match arg.as_str() {
            "--port" => port = value("--port").parse().unwrap_or_else(|_| fail("--port takes a number")),
            "--modes" => merge(&mut patch, &value("--modes")),
            "--no-cookie-needed" => {
                patch.insert("awardDatesNeedCookie".into(), false.into());
            }
            "--down" => {
                patch.insert("down".into(), true.into());
            }
            "--members" => {
                let n: u64 = value("--members").parse().unwrap_or_else(|_| fail("--members takes a number"));
                patch.insert("memberCount".into(), n.into());
            }
            "--latency-ms" => {
                let n: u64 = value("--latency-ms").parse().unwrap_or_else(|_| fail("--latency-ms takes a number"));
                patch.insert("latencyMs".into(), n.into());
            }
            "--open-cloud-scale" => {
                let f: f64 = value("--open-cloud-scale")
                    .parse()
                    .ok()
                    .filter(|f: &f64| f.is_finite() && *f > 0.0)
                    .unwrap_or_else(|| fail("--open-cloud-scale takes a positive number"));
                patch.insert("openCloudLimitScale".into(), f.into());
            }
            "-h" | "--help" => {
                println!(
                    "fake_roblox [--port N] [--modes JSON] [--no-cookie-needed] [--down] [--members N] [--latency-ms N] [--open-cloud-scale F]"
                );
                return;
            }
            other => fail(&format!("unknown argument {other}")),
        }
    }
    let mut modes = serde_json::to_value(fake_roblox::Modes::default()).expect("modes serialize");
    modes.as_object_mut().expect("an object").extend(patch);
    let modes: fake_roblox::Modes = serde_json::from_value(modes).unwrap_or_else(|e| fail(&format!("bad modes: {e}")));
    let fake = fake_roblox::FakeRoblox::start_with(port, modes);
    println!("fake-roblox listening on {}", fake.base);
    std::io::stdout().flush().ok();
    loop {
        std::thread::park();
    }
}

fn merge(into: &mut serde_json::Map<String, serde_json::Value>, text: &str) {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(m)) => into.extend(m),
        _ => fail("modes must be a JSON object"),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("fake_roblox: {message}");
    std::process::exit(2)
}
