//! Builds the UI (`ui/` -> `ui/dist`) so rust-embed can bake it into the binary.
//!
//! - `npm ci` runs only when `ui/node_modules/.package-lock.json` (written by every npm install)
//!   is missing or older than `ui/package-lock.json` (the same rule as `scripts/test`).
//! - The Vite build runs only when a UI input is newer than `ui/dist/index.html`, so a Rust-only
//!   change (or a `data/` change) never rebuilds the UI.
//! - `FANHUB_SKIP_UI=1` skips the UI for quick Rust work in debug builds (a stand-in page is
//!   embedded). Release builds ignore it: a release always embeds the real UI.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

const UI_INPUTS: &[&str] = &[
    "ui/src",
    "assets",
    "ui/index.html",
    "ui/package.json",
    "ui/package-lock.json",
    "ui/vite.config.ts",
    "ui/tsconfig.json",
    "ui/scripts/precompress.mjs",
    "ui/scripts/prerender.mjs",
];

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let ui = root.join("ui");
    println!("cargo:rerun-if-env-changed=FANHUB_SKIP_UI");
    build_info(&root);
    // include_dir! does not tell cargo about the files it bakes in.
    println!("cargo:rerun-if-changed=data");
    for input in UI_INPUTS {
        if root.join(input).exists() {
            println!("cargo:rerun-if-changed={input}");
        }
    }

    let release = std::env::var("PROFILE").as_deref() == Ok("release");
    let skip = std::env::var("FANHUB_SKIP_UI").is_ok_and(|v| v == "1" || v == "true");
    let index = ui.join("dist/index.html");
    if skip && !release {
        if !index.exists() {
            std::fs::create_dir_all(ui.join("dist")).unwrap();
            std::fs::write(
                &index,
                "<!doctype html><title>fanhub</title><p>UI not built (FANHUB_SKIP_UI is set).</p>\n",
            )
            .unwrap();
        }
        return;
    }
    if skip {
        println!("cargo:warning=FANHUB_SKIP_UI is ignored for release builds: the real UI is embedded");
    }

    npm_ci_if_needed(&ui);
    if ui_is_stale(&root, &index) {
        run(Command::new(npm()).args(["run", "build"]).current_dir(&ui), "npm run build (the Vite build of ui/)");
    }
}

/// What `fanhub --version` prints besides the version: the commit, the build date (UTC, or the
/// date of SOURCE_DATE_EPOCH for reproducible builds) and the target triple.
/// The commit is FANHUB_COMMIT when set (scripts/release sets it, so release binaries always name
/// theirs), else `git rev-parse` when this script runs ("unknown" without .git). Git's refs are
/// deliberately not rerun-if-changed inputs: that would rebuild the whole package, every test
/// binary included, after each commit; a plain `cargo build` may name an older commit.
fn build_info(root: &Path) {
    println!("cargo:rerun-if-env-changed=FANHUB_COMMIT");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let commit = std::env::var("FANHUB_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    let epoch =
        std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.trim().parse::<i64>().ok()).unwrap_or_else(|| {
            SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
        });
    println!("cargo:rustc-env=FANHUB_COMMIT={commit}");
    println!("cargo:rustc-env=FANHUB_BUILD_DATE={}", civil_date(epoch));
    println!("cargo:rustc-env=FANHUB_TARGET={}", std::env::var("TARGET").unwrap_or_default());
}

/// YYYY-MM-DD (UTC) of a Unix time, without a date crate (Howard Hinnant's days_from_civil inverse).
fn civil_date(epoch_secs: i64) -> String {
    let z = epoch_secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn npm() -> &'static str {
    if cfg!(windows) { "npm.cmd" } else { "npm" }
}

fn npm_ci_if_needed(ui: &Path) {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let lock = modified(&ui.join("package-lock.json")).expect("ui/package-lock.json is missing");
    if modified(&ui.join("node_modules/.package-lock.json")).is_some_and(|installed| installed >= lock) {
        return;
    }
    run(
        Command::new(npm()).args(["ci", "--no-audit", "--no-fund"]).current_dir(ui),
        "npm ci (installing the UI's packages)",
    );
}

fn ui_is_stale(root: &Path, index: &Path) -> bool {
    let Ok(built) = std::fs::metadata(index).and_then(|m| m.modified()) else {
        return true;
    };
    UI_INPUTS.iter().map(|i| newest(&root.join(i))).any(|t| t > built)
}

fn newest(path: &Path) -> SystemTime {
    let Ok(meta) = std::fs::metadata(path) else {
        return SystemTime::UNIX_EPOCH;
    };
    let own = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    if !meta.is_dir() {
        return own;
    }
    std::fs::read_dir(path).into_iter().flatten().flatten().map(|e| newest(&e.path())).fold(own, SystemTime::max)
}

fn run(cmd: &mut Command, what: &str) {
    match cmd.status() {
        Ok(status) if status.success() => {}
        Ok(status) => panic!("{what} failed with {status}; run it in ui/ to see why"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            panic!(
                "{what}: npm was not found. Install Node.js 20+ and npm, or set FANHUB_SKIP_UI=1 for a debug build without the UI"
            )
        }
        Err(e) => panic!("{what}: cannot run npm: {e}"),
    }
}
