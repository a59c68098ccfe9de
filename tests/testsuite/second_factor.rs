//! Second factors for admin and moderator accounts: an authenticator app (TOTP), recovery codes,
//! the pending sign-in between the password and the code, the host's requirement for admins and
//! the admin's reset.
//!
//! The per-address sign-in limit (10 a minute) counts code attempts too, so tests that sign in
//! several times do it from browsers bound to other loopback addresses (127.0.0.x), each with
//! its own budget and no device cookie.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common::{Server, admin_key, client, json};
use reqwest::StatusCode;
use serde_json::{Value, json};
use totp_rs::{Algorithm, TOTP};

const PASSWORD: &str = "staff password 22";
const STEP_SECS: u64 = 30;

// ---- helpers ----

/// A browser (cookie jar, same-origin header) whose connections come from the loopback address `ip`.
fn browser_from(s: &Server, ip: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("origin", s.base.parse().unwrap());
    fanhub::llm::install_crypto();
    reqwest::Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .local_address(ip.parse::<std::net::IpAddr>().unwrap())
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn login(c: &reqwest::Client, s: &Server, name: &str, pass: &str) -> reqwest::Response {
    c.post(s.url("/api/auth/login")).json(&json!({"username": name, "password": pass})).send().await.unwrap()
}

/// Registers `name` with [`PASSWORD`], gives it `role` with the admin key and signs it in from
/// `ip`: the signed-in browser and the account's id.
async fn staff_account(s: &Server, key: &str, name: &str, role: &str, ip: &str) -> (reqwest::Client, i64) {
    let b = browser_from(s, ip);
    let res = b
        .post(s.url("/api/auth/register"))
        .json(&json!({"username": name, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let id = json(res).await["user"]["id"].as_i64().unwrap();
    let res = client()
        .patch(s.url(&format!("/api/admin/users/{id}")))
        .header("x-admin-key", key)
        .json(&json!({"role": role}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(login(&b, s, name, PASSWORD).await.status(), StatusCode::OK);
    (b, id)
}

/// The generator for a base32 secret as the server hands it out.
fn generator(secret: &str) -> TOTP {
    let bytes = totp_rs::Secret::Encoded(secret.to_string()).to_bytes().unwrap();
    TOTP::new(Algorithm::SHA1, 6, 1, STEP_SECS, bytes, Some("x".into()), "y".into()).unwrap()
}

fn now_secs_f64() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

fn current_step() -> i64 {
    (now_secs_f64() as u64 / STEP_SECS) as i64
}

fn code_at(totp: &TOTP, step: i64) -> String {
    totp.generate(step as u64 * STEP_SECS)
}

/// The current 30 s step once at least `secs` of it are left (waiting for the next one
/// otherwise), so the codes picked relative to it mean the same to the server a moment later.
async fn step_with_at_least(secs: f64) -> i64 {
    let left = STEP_SECS as f64 - now_secs_f64() % STEP_SECS as f64;
    if left < secs {
        tokio::time::sleep(Duration::from_secs_f64(left + 0.05)).await;
    }
    current_step()
}

/// Waits until step `step + 1` has begun.
async fn next_step_after(step: i64) {
    let begins = ((step + 1) as u64 * STEP_SECS) as f64 + 0.05;
    let wait = begins - now_secs_f64();
    if wait > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(wait)).await;
    }
    assert!(current_step() > step);
}

/// Six digits that are none of the codes around now.
fn wrong_code(totp: &TOTP) -> String {
    let step = current_step();
    let near: Vec<String> = (step - 2..=step + 2).map(|s| code_at(totp, s)).collect();
    (0..).map(|n| format!("{n:06}")).find(|c| !near.contains(c)).unwrap()
}

/// An authenticator app set up on an account.
struct App {
    secret: String,
    totp: TOTP,
    /// The last step whose code the server accepted.
    last_step: i64,
    recovery_codes: Vec<String>,
    confirm: Value,
}

impl App {
    /// The code of the step after the last one used (valid while the server's clock is within
    /// one step of it), which is then used.
    fn next_code(&mut self) -> String {
        self.last_step += 1;
        code_at(&self.totp, self.last_step)
    }
}

async fn start_totp(b: &reqwest::Client, s: &Server) -> reqwest::Response {
    b.post(s.url("/api/account/second-factors/totp")).json(&json!({})).send().await.unwrap()
}

async fn confirm_totp(b: &reqwest::Client, s: &Server, code: &str) -> reqwest::Response {
    b.post(s.url("/api/account/second-factors/totp/confirm")).json(&json!({"code": code})).send().await.unwrap()
}

/// Sets up an authenticator app for the account signed in on `b`, confirmed with the current code.
async fn enrol(b: &reqwest::Client, s: &Server) -> App {
    let res = start_totp(b, s).await;
    assert_eq!(res.status(), StatusCode::OK);
    let secret = json(res).await["secret"].as_str().unwrap().to_string();
    let totp = generator(&secret);
    let step = current_step();
    let res = confirm_totp(b, s, &code_at(&totp, step)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let confirm = json(res).await;
    let recovery_codes =
        confirm["recoveryCodes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    App { secret, totp, last_step: step, recovery_codes, confirm }
}

async fn second_factor(c: &reqwest::Client, s: &Server, code: &str) -> reqwest::Response {
    c.post(s.url("/api/auth/second-factor")).json(&json!({"code": code})).send().await.unwrap()
}

async fn me(c: &reqwest::Client, s: &Server) -> StatusCode {
    c.get(s.url("/api/auth/user")).send().await.unwrap().status()
}

async fn factors(c: &reqwest::Client, s: &Server) -> Value {
    let res = c.get(s.url("/api/account/second-factors")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    json(res).await
}

/// The cookies an answer sets, by name, with their attributes.
fn set_cookies(res: &reqwest::Response) -> Vec<(String, String)> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .map(|c| (c.split('=').next().unwrap().to_string(), c))
        .collect()
}

/// Signs in with the password from a new browser at `ip`, which the server answers with 202
/// (waiting for the second factor): that browser.
async fn pending_sign_in(s: &Server, name: &str, ip: &str) -> reqwest::Client {
    let c = browser_from(s, ip);
    let res = login(&c, s, name, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    c
}

/// Asserts a 401 whose `error` is `error`.
async fn refused(res: reqwest::Response, error: &str, what: &str) {
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{what}");
    assert_eq!(json(res).await["error"], error, "{what}");
}

const NOT_RIGHT: &str = "That code is not right.";
const EXPIRED: &str = "Your sign-in expired.";

// ---- tests ----

#[tokio::test]
async fn an_authenticator_app_signs_in_one_step_either_way_and_no_code_works_twice() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, _) = staff_account(&s, &key, "totp_admin", "admin", "127.0.0.1").await;
    let res = start_totp(&b, &s).await;
    assert_eq!(res.status(), StatusCode::OK);
    let setup = json(res).await;
    let secret = setup["secret"].as_str().unwrap().to_string();
    assert_eq!(totp_rs::Secret::Encoded(secret.clone()).to_bytes().unwrap().len(), 20, "160 bits: {setup}");
    let url = setup["otpauthUrl"].as_str().unwrap();
    assert!(url.starts_with("otpauth://totp/"), "{url}");
    assert!(url.contains("totp_admin") && url.contains(&format!("secret={secret}")), "{url}");
    assert_eq!(setup["expiresIn"], 300);
    let png = setup["qrCode"].as_str().unwrap().strip_prefix("data:image/png;base64,").expect("a PNG data URL");
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD.decode(png).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");

    let totp = generator(&secret);
    // Room for the steps below to mean the same to the server as here.
    let step = step_with_at_least(10.0).await;
    // No code was used yet, so at set-up the window alone decides: two steps either way is out.
    for (far, what) in [(step - 2, "two steps old"), (step + 2, "two steps ahead")] {
        let res = confirm_totp(&b, &s, &code_at(&totp, far)).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{what}");
        assert!(json(res).await["fields"]["code"].is_string(), "{what}");
    }
    // The previous step's code confirms it, and that step is used up.
    let res = confirm_totp(&b, &s, &code_at(&totp, step - 1)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let confirmed = json(res).await;
    assert_eq!(confirmed["success"], true);
    assert_eq!(confirmed["recoveryCodes"].as_array().unwrap().len(), 10, "{confirmed}");
    assert_eq!(confirmed["otherSessionsEnded"], 0);
    assert_eq!(confirm_totp(&b, &s, &code_at(&totp, step)).await.status(), StatusCode::CONFLICT, "confirmed once");
    assert_eq!(start_totp(&b, &s).await.status(), StatusCode::CONFLICT, "an app is set up already");
    let status = factors(&b, &s).await;
    assert_eq!((&status["available"], &status["enabled"]), (&json!(true), &json!(true)), "{status}");
    assert!(status["totp"]["addedAt"].is_string(), "{status}");
    assert_eq!(status["recoveryCodesLeft"], 10);
    assert_eq!(b.post(s.url("/api/auth/logout")).send().await.unwrap().status(), StatusCode::OK);

    // The password alone opens no session: it answers 202 with a short-lived pending cookie.
    let first = browser_from(&s, "127.0.0.2");
    let res = login(&first, &s, "totp_admin", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let cookies = set_cookies(&res);
    let (_, pending) = cookies.iter().find(|(n, _)| n == "fanhub_sign_in").unwrap_or_else(|| panic!("{cookies:?}"));
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=300"] {
        assert!(pending.contains(flag), "{pending} lacks {flag}");
    }
    assert!(!cookies.iter().any(|(n, _)| n == "fanhub_session"), "{cookies:?}");
    let body = json(res).await;
    assert_eq!(body, json!({"secondFactorRequired": true, "methods": ["totp", "recovery"], "expiresIn": 300}));
    assert_eq!(me(&first, &s).await, StatusCode::UNAUTHORIZED, "no session before the code");
    refused(second_factor(&first, &s, &code_at(&totp, step - 1)).await, NOT_RIGHT, "the confirming code again").await;
    refused(second_factor(&first, &s, &code_at(&totp, step + 2)).await, NOT_RIGHT, "two steps ahead").await;

    // A previous-step code must be newer than the step used at set-up: one step later it is.
    next_step_after(step).await;
    let now = step + 1;
    let res = second_factor(&first, &s, &code_at(&totp, now - 1)).await;
    assert_eq!(res.status(), StatusCode::OK, "the previous step's code");
    let cookies = set_cookies(&res);
    assert!(cookies.iter().any(|(n, _)| n == "fanhub_session"), "{cookies:?}");
    assert!(cookies.iter().any(|(n, c)| n == "fanhub_sign_in" && c.contains("Max-Age=0")), "{cookies:?}");
    let body = json(res).await;
    assert_eq!((body["success"].clone(), body["user"]["username"].clone()), (json!(true), json!("totp_admin")));
    let user = first.get(s.url("/api/auth/user")).send().await.unwrap();
    assert_eq!(user.status(), StatusCode::OK);
    assert_eq!(json(user).await["username"], "totp_admin");

    for (ip, code_step, what) in
        [("127.0.0.3", now, "the current step's code"), ("127.0.0.4", now + 1, "the next step's")]
    {
        let c = pending_sign_in(&s, "totp_admin", ip).await;
        assert_eq!(second_factor(&c, &s, &code_at(&totp, code_step)).await.status(), StatusCode::OK, "{what}");
        assert_eq!(me(&c, &s).await, StatusCode::OK, "{what}");
    }
    // The last used step is now + 1: nothing at or before it passes again.
    let late = pending_sign_in(&s, "totp_admin", "127.0.0.5").await;
    for (code_step, what) in [
        (now + 1, "replayed"),
        (now, "older than the last used"),
        (now - 2, "two steps old"),
        (now + 2, "two steps ahead"),
    ] {
        refused(second_factor(&late, &s, &code_at(&totp, code_step)).await, NOT_RIGHT, what).await;
    }
    assert_eq!(me(&late, &s).await, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn recovery_codes_work_once_each_in_any_case_and_are_replaced_together() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, _) = staff_account(&s, &key, "codes_admin", "moderator", "127.0.0.1").await;
    let app = enrol(&b, &s).await;
    let codes = app.recovery_codes.clone();
    assert_eq!(codes.len(), 10);
    assert_eq!(codes.iter().collect::<std::collections::HashSet<_>>().len(), 10, "distinct: {codes:?}");
    for code in &codes {
        let groups: Vec<&str> = code.split('-').collect();
        assert!(
            groups.len() == 4
                && groups
                    .iter()
                    .all(|g| g.len() == 4 && g.bytes().all(|c| c.is_ascii_lowercase() || (b'2'..=b'7').contains(&c))),
            "{code}"
        );
    }
    assert_eq!(b.post(s.url("/api/auth/logout")).send().await.unwrap().status(), StatusCode::OK);

    let c = pending_sign_in(&s, "codes_admin", "127.0.0.2").await;
    assert_eq!(second_factor(&c, &s, &codes[0]).await.status(), StatusCode::OK);
    assert_eq!(me(&c, &s).await, StatusCode::OK);

    let c = pending_sign_in(&s, "codes_admin", "127.0.0.3").await;
    refused(second_factor(&c, &s, &codes[0]).await, NOT_RIGHT, "a spent recovery code").await;
    let typed = codes[1].to_uppercase().replace('-', "");
    assert_eq!(second_factor(&c, &s, &typed).await.status(), StatusCode::OK, "uppercase without dashes: {typed}");
    assert_eq!(factors(&c, &s).await["recoveryCodesLeft"], 8);

    // New codes ask for the password again.
    let new_codes = |password: &str| {
        c.post(s.url("/api/account/second-factors/recovery-codes")).json(&json!({"password": password})).send()
    };
    let res = new_codes("not my password").await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(json(res).await["fields"]["password"].is_string());
    assert_eq!(factors(&c, &s).await["recoveryCodesLeft"], 8, "a wrong password replaces nothing");
    let res = new_codes(PASSWORD).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let fresh: Vec<String> =
        json(res).await["recoveryCodes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    assert_eq!(fresh.len(), 10);
    assert!(fresh.iter().all(|f| !codes.contains(f)), "all new");
    assert_eq!(factors(&c, &s).await["recoveryCodesLeft"], 10);

    let c = pending_sign_in(&s, "codes_admin", "127.0.0.4").await;
    refused(second_factor(&c, &s, &codes[2]).await, NOT_RIGHT, "an unused code of the replaced set").await;
    assert_eq!(second_factor(&c, &s, &format!("  {}  ", fresh[0])).await.status(), StatusCode::OK);

    // Signing out forgets a pending sign-in on the server, not only the cookie in this browser.
    let pending_cookie = |res: &reqwest::Response| {
        let cookies = set_cookies(res);
        let (_, cookie) = cookies.into_iter().find(|(n, _)| n == "fanhub_sign_in").unwrap();
        cookie.split(';').next().unwrap().to_string()
    };
    let replay = |cookie: String, code: String| {
        client()
            .post(s.url("/api/auth/second-factor"))
            .header("origin", s.base.as_str())
            .header("cookie", cookie)
            .json(&json!({"code": code}))
            .send()
    };
    let c = browser_from(&s, "127.0.0.5");
    let kept = pending_cookie(&login(&c, &s, "codes_admin", PASSWORD).await);
    assert_eq!(replay(kept, fresh[1].clone()).await.unwrap().status(), StatusCode::OK, "the cookie alone completes it");
    let c = browser_from(&s, "127.0.0.6");
    let forgotten = pending_cookie(&login(&c, &s, "codes_admin", PASSWORD).await);
    assert_eq!(c.post(s.url("/api/auth/logout")).send().await.unwrap().status(), StatusCode::OK);
    refused(replay(forgotten, fresh[2].clone()).await.unwrap(), EXPIRED, "after signing out").await;
}

#[tokio::test]
async fn five_wrong_codes_end_the_sign_in_and_count_against_the_username_in_the_logs() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, id) = staff_account(&s, &key, "guarded_admin", "admin", "127.0.0.1").await;
    let mut app = enrol(&b, &s).await;
    assert_eq!(b.post(s.url("/api/auth/logout")).send().await.unwrap().status(), StatusCode::OK);

    // A new browser (no device cookie of this account): its failures count against the name.
    let c = pending_sign_in(&s, "guarded_admin", "127.0.0.2").await;
    for n in 1..5 {
        let code = if n % 2 == 0 { wrong_code(&app.totp) } else { "aaaa-bbbb-cccc-dddd".to_string() };
        refused(second_factor(&c, &s, &code).await, NOT_RIGHT, &format!("wrong code {n}")).await;
    }
    refused(second_factor(&c, &s, &wrong_code(&app.totp)).await, "Too many wrong codes.", "the fifth").await;
    refused(second_factor(&c, &s, &app.next_code()).await, EXPIRED, "a right code after five wrong ones").await;
    refused(second_factor(&c, &s, &app.recovery_codes[0]).await, EXPIRED, "a recovery code after five wrong ones")
        .await;

    // Five failures hold the name back (for a second now): the password is refused from elsewhere.
    let res = login(&browser_from(&s, "127.0.0.3"), &s, "guarded_admin", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "the name is held back after five wrong codes");
    assert!(res.headers().contains_key("retry-after"));
    assert_eq!(json(res).await["message"], "Too many failed sign-ins for this username.");
    let list = json(client().get(s.url("/api/admin/users")).header("x-admin-key", &key).send().await.unwrap()).await;
    let throttled = list["throttled"].as_array().unwrap();
    assert!(throttled.iter().any(|t| t["userId"] == id && t["failedSignIns"] == 5), "{list}");

    let logs =
        json(client().get(s.url("/api/admin/login-logs?limit=100")).header("x-admin-key", &key).send().await.unwrap())
            .await;
    let failures: Vec<&Value> =
        logs["logs"].as_array().unwrap().iter().filter(|l| l["loginStatus"] == "second_factor_failure").collect();
    assert_eq!(failures.len(), 5, "one line per wrong code: {logs}");
    assert!(failures.iter().all(|l| l["username"] == "guarded_admin"), "{logs}");
    // The recovery code sent after the sign-in ended was not spent.
    let conn = rusqlite::Connection::open(s.data_dir.join("fanhub.db")).unwrap();
    let left: i64 =
        conn.query_row("SELECT COUNT(*) FROM recovery_codes WHERE user_id = ?1", [id], |r| r.get(0)).unwrap();
    assert_eq!(left, 10);
}

#[tokio::test]
async fn code_attempts_count_toward_the_per_address_sign_in_limit() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, _) = staff_account(&s, &key, "limited_admin", "admin", "127.0.0.1").await;
    let app = enrol(&b, &s).await;
    assert_eq!(b.post(s.url("/api/auth/logout")).send().await.unwrap().status(), StatusCode::OK);

    // From one address: one password and four wrong codes, then five wrong passwords for another
    // name. Six passwords are under the limit of ten a minute; with the codes it is used up.
    let c = pending_sign_in(&s, "limited_admin", "127.0.0.2").await;
    for n in 0..4 {
        refused(second_factor(&c, &s, &wrong_code(&app.totp)).await, NOT_RIGHT, &format!("wrong code {n}")).await;
    }
    for n in 0..5 {
        let res = login(&c, &s, "nobody_at_all", "guess").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "wrong password {n}");
    }
    let res = second_factor(&c, &s, &app.recovery_codes[0]).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "the 11th attempt from the address");
    let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert_ne!(
        json(res).await["message"],
        "Too many failed sign-ins for this username.",
        "the address's limit, not the name's (four failures)"
    );
    // Another address is not held back by it.
    let other = pending_sign_in(&s, "limited_admin", "127.0.0.3").await;
    assert_eq!(second_factor(&other, &s, &app.recovery_codes[1]).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_first_factor_ends_the_accounts_other_sessions_but_not_the_one_adding_it() {
    let s = Server::start();
    let key = admin_key(&s);
    let (here, _) = staff_account(&s, &key, "careful_admin", "admin", "127.0.0.1").await;
    let elsewhere = browser_from(&s, "127.0.0.2");
    assert_eq!(login(&elsewhere, &s, "careful_admin", PASSWORD).await.status(), StatusCode::OK);
    let (bystander, _) = staff_account(&s, &key, "bystander", "admin", "127.0.0.3").await;
    for c in [&here, &elsewhere, &bystander] {
        assert_eq!(me(c, &s).await, StatusCode::OK, "precondition");
    }

    let app = enrol(&here, &s).await;
    assert_eq!(app.confirm["otherSessionsEnded"], 1, "{}", app.confirm);
    assert_eq!(me(&elsewhere, &s).await, StatusCode::UNAUTHORIZED, "opened with the password alone");
    assert_eq!(me(&here, &s).await, StatusCode::OK, "the session that added the factor");
    assert_eq!(here.get(s.url("/api/admin/users")).send().await.unwrap().status(), StatusCode::OK);
    assert_eq!(me(&bystander, &s).await, StatusCode::OK, "another account's session");
}

#[tokio::test]
async fn a_site_requiring_a_second_factor_keeps_admin_accounts_without_one_out_of_the_panel() {
    let s = Server::with_env(&[("FANHUB_REQUIRE_SECOND_FACTOR", "true")]);
    let key = admin_key(&s);
    let (b, id) = staff_account(&s, &key, "strict_admin", "admin", "127.0.0.1").await;
    let res = b.get(s.url("/api/admin/users")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert_eq!(json(res).await["error"], "This site requires a second factor for admin accounts.");
    let status = factors(&b, &s).await;
    assert_eq!((&status["required"], &status["enabled"]), (&json!(true), &json!(false)), "{status}");

    // Admin keys are not accounts: the host's way in stays open.
    let res = client().get(s.url("/api/admin/users")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let list = json(res).await;
    assert_eq!(list["secondFactorRequired"], true);
    assert_eq!(list["secondFactors"], json!([]));

    enrol(&b, &s).await;
    let res = b.get(s.url("/api/admin/users")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "the same session, now with a factor");
    let list = json(res).await;
    assert_eq!(list["secondFactors"], json!([{"userId": id, "methods": ["totp"]}]), "{list}");
    assert_eq!(list["secondFactorRequired"], true);
}

#[tokio::test]
async fn an_admin_reset_removes_the_factors_and_ends_the_sessions_so_the_password_alone_signs_in() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, id) = staff_account(&s, &key, "lost_phone", "admin", "127.0.0.1").await;
    let mut app = enrol(&b, &s).await;
    let with_code = pending_sign_in(&s, "lost_phone", "127.0.0.2").await;
    assert_eq!(second_factor(&with_code, &s, &app.next_code()).await.status(), StatusCode::OK);
    let reset = |id: i64| {
        client().delete(s.url(&format!("/api/admin/users/{id}/second-factors"))).header("x-admin-key", &key).send()
    };
    assert_eq!(reset(id + 1000).await.unwrap().status(), StatusCode::NOT_FOUND);
    let res = reset(id).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(json(res).await, json!({"success": true}));
    for (c, what) in [(&b, "the session that enrolled"), (&with_code, "a session opened with a code")] {
        assert_eq!(me(c, &s).await, StatusCode::UNAUTHORIZED, "{what}");
    }
    let list = json(client().get(s.url("/api/admin/users")).header("x-admin-key", &key).send().await.unwrap()).await;
    assert_eq!(list["secondFactors"], json!([]), "{list}");
    assert_eq!(list["secondFactorRequired"], false);

    let again = browser_from(&s, "127.0.0.3");
    let res = login(&again, &s, "lost_phone", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::OK, "the password alone");
    assert!(set_cookies(&res).iter().any(|(n, _)| n == "fanhub_session"));
    let status = factors(&again, &s).await;
    assert_eq!((&status["enabled"], &status["recoveryCodesLeft"]), (&json!(false), &json!(0)), "{status}");
    assert!(status["totp"].is_null(), "{status}");
    // Without --require-second-factor an admin account reaches the panel with its password alone.
    assert_eq!(again.get(s.url("/api/admin/users")).send().await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn removing_the_last_factor_asks_for_the_password_and_takes_the_recovery_codes_with_it() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, _) = staff_account(&s, &key, "tidy_admin", "admin", "127.0.0.1").await;
    enrol(&b, &s).await;
    let remove = |body: Value| b.post(s.url("/api/account/second-factors/remove")).json(&body).send();

    let res = remove(json!({"method": "passkey", "password": PASSWORD})).await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(json(res).await["fields"]["passkeyId"].is_string());
    // Wrong passwords count as failed sign-ins of this browser (the account signed in from it):
    // five hold it back, and it does not fall back to the name's count as a sign-in would.
    for n in 0..5 {
        let res = remove(json!({"method": "totp", "password": "not it"})).await.unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "wrong password {n}");
        assert!(json(res).await["fields"]["password"].is_string());
    }
    let res = remove(json!({"method": "totp", "password": PASSWORD})).await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "held back, even with the right password");
    assert!(res.headers().contains_key("retry-after"));
    // The owner's own wrong passwords hold back only the owner's browser: a stranger's guesses
    // could not block this re-check either (the name's count is not the one it meets).
    let res = login(&browser_from(&s, "127.0.0.2"), &s, "tidy_admin", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::ACCEPTED, "another browser signs in as before (to its second factor)");
    assert_eq!(factors(&b, &s).await["enabled"], true, "nothing was removed");

    // The hold after five failures is a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let res = remove(json!({"method": "totp", "password": PASSWORD})).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(json(res).await, json!({"success": true, "enabled": false}));
    let status = factors(&b, &s).await;
    assert_eq!((&status["enabled"], &status["recoveryCodesLeft"]), (&json!(false), &json!(0)), "{status}");
    let res = b
        .post(s.url("/api/account/second-factors/recovery-codes"))
        .json(&json!({"password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT, "no factor to recover");
    let res = login(&browser_from(&s, "127.0.0.3"), &s, "tidy_admin", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::OK, "the password alone signs in again");
}

#[tokio::test]
async fn only_signed_in_staff_accounts_may_add_a_second_factor() {
    let s = Server::start();
    let key = admin_key(&s);
    let (user, _) = staff_account(&s, &key, "plain_member", "user", "127.0.0.1").await;
    let status = factors(&user, &s).await;
    assert_eq!((&status["available"], &status["enabled"]), (&json!(false), &json!(false)), "{status}");
    let calls: [(&str, Value); 6] = [
        ("/api/account/second-factors/totp", json!({})),
        ("/api/account/second-factors/totp/confirm", json!({"code": "123456"})),
        ("/api/account/second-factors/passkeys", json!({"name": "Laptop"})),
        ("/api/account/second-factors/passkeys/confirm", json!({"credential": {}})),
        ("/api/account/second-factors/remove", json!({"method": "totp", "password": PASSWORD})),
        ("/api/account/second-factors/recovery-codes", json!({"password": PASSWORD})),
    ];
    for (path, body) in &calls {
        let res = user.post(s.url(path)).json(body).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "a user account: {path}");
        assert!(json(res).await["error"].is_string());
        let res = client().post(s.url(path)).json(body).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "signed out: {path}");
    }
    let res = client().get(s.url("/api/account/second-factors")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);

    // A moderator may.
    let (moderator, _) = staff_account(&s, &key, "a_moderator", "moderator", "127.0.0.2").await;
    assert_eq!(factors(&moderator, &s).await["available"], true);
    assert_eq!(start_totp(&moderator, &s).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn hostile_second_factor_input_gets_clear_client_errors() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, _) = staff_account(&s, &key, "hostile_admin", "admin", "127.0.0.1").await;
    let long = "1".repeat(10 * 1024);
    let post_raw = |c: &reqwest::Client, path: &str, body: String| {
        c.post(s.url(path)).header("content-type", "application/json").body(body).send()
    };
    /// A 4xx with a JSON `error`; never a 500.
    async fn client_error(res: reqwest::Response, what: &str) -> StatusCode {
        let status = res.status();
        assert!(status.is_client_error(), "{what}: {status}");
        assert!(json(res).await["error"].is_string(), "{what}");
        status
    }

    // Enrolment, signed in.
    let confirm = "/api/account/second-factors/totp/confirm";
    let res = post_raw(&b, confirm, json!({"code": "123456"}).to_string()).await.unwrap();
    assert_eq!(client_error(res, "confirm without a set-up").await, StatusCode::CONFLICT);
    assert_eq!(start_totp(&b, &s).await.status(), StatusCode::OK);
    for (body, what) in [
        (json!({"code": 123}).to_string(), "a number"),
        ("[]".to_string(), "an array"),
        ("{\"code\": ".to_string(), "broken JSON"),
        (json!({"code": long}).to_string(), "a 10 KB code"),
        (json!({}).to_string(), "no code"),
        (json!({"code": "１２３４５６"}).to_string(), "full-width digits"),
    ] {
        let res = post_raw(&b, confirm, body).await.unwrap();
        assert_eq!(client_error(res, what).await, StatusCode::BAD_REQUEST, "{what}");
    }
    for (path, body, what) in [
        ("/api/account/second-factors/passkeys/confirm", json!({"credential": "x"}), "a credential string"),
        ("/api/account/second-factors/passkeys/confirm", json!({"credential": {"id": long}}), "a 10 KB credential"),
        ("/api/account/second-factors/passkeys", json!({"name": "Laptop"}), "a passkey at an IP address"),
        ("/api/account/second-factors/passkeys", json!({"name": "x".repeat(65)}), "a long name"),
        ("/api/account/second-factors/remove", json!({"method": "sms", "password": PASSWORD}), "an unknown method"),
        (
            "/api/account/second-factors/remove",
            json!({"method": "passkey", "passkeyId": "one", "password": "x"}),
            "a text id",
        ),
    ] {
        let res = b.post(s.url(path)).json(&body).send().await.unwrap();
        client_error(res, what).await;
    }

    // Signing in, with no pending sign-in.
    let stranger = browser_from(&s, "127.0.0.2");
    let fake_cookie = format!("fanhub_sign_in={}", "ab".repeat(32));
    let huge_cookie = format!("fanhub_sign_in={}", "a".repeat(6000));
    for (cookie, what) in
        [(None, "no cookie"), (Some(fake_cookie), "an unknown cookie"), (Some(huge_cookie), "a huge one")]
    {
        for path in
            ["/api/auth/second-factor", "/api/auth/second-factor/passkey", "/api/auth/second-factor/passkey/confirm"]
        {
            let mut req = stranger.post(s.url(path)).json(&json!({"code": "123456", "credential": "x"}));
            if let Some(cookie) = &cookie {
                req = req.header("cookie", cookie.clone());
            }
            let res = req.send().await.unwrap();
            assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{what}: {path}");
            assert_eq!(json(res).await["error"], EXPIRED, "{what}: {path}");
        }
    }

    // Now with one waiting (the account needs a factor first).
    let res = post_raw(&b, confirm, String::new()).await.unwrap();
    assert_eq!(client_error(res, "an empty body").await, StatusCode::BAD_REQUEST);
    // A new set-up replaces the one under way.
    let app = enrol(&b, &s).await;
    let c = pending_sign_in(&s, "hostile_admin", "127.0.0.3").await;
    for (body, what) in [
        (json!({"code": 123}).to_string(), "a number"),
        ("[]".to_string(), "an array"),
        ("{\"code\": ".to_string(), "broken JSON"),
    ] {
        let res = post_raw(&c, "/api/auth/second-factor", body).await.unwrap();
        assert_eq!(client_error(res, what).await, StatusCode::BAD_REQUEST, "{what}");
    }
    let res = post_raw(&c, "/api/auth/second-factor", json!({"code": "   "}).to_string()).await.unwrap();
    assert_eq!(client_error(res, "a blank code").await, StatusCode::BAD_REQUEST);
    let res = second_factor(&c, &s, &long).await;
    assert_eq!(client_error(res, "a 10 KB code").await, StatusCode::UNAUTHORIZED);
    let res = c.post(s.url("/api/auth/second-factor/passkey")).send().await.unwrap();
    assert_eq!(client_error(res, "a passkey sign-in for an account without one").await, StatusCode::CONFLICT);
    let res = c.post(s.url("/api/auth/second-factor/passkey/confirm")).json(&json!({"credential": "x"})).send();
    assert_eq!(client_error(res.await.unwrap(), "a passkey answer never asked for").await, StatusCode::CONFLICT);
    // The pending cookie authenticates: a cross-site post with it is refused.
    let cross = c
        .post(s.url("/api/auth/second-factor"))
        .header("origin", "https://evil.example")
        .json(&json!({"code": app.recovery_codes[0]}))
        .send()
        .await
        .unwrap();
    assert_eq!(cross.status(), StatusCode::FORBIDDEN, "a cross-site post with the pending cookie");
    // After all that, the pending sign-in still completes (one wrong code of five).
    assert_eq!(second_factor(&c, &s, &app.recovery_codes[0]).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_authenticator_secret_is_sealed_at_rest_under_a_private_key_file() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, id) = staff_account(&s, &key, "sealed_admin", "admin", "127.0.0.1").await;
    let app = enrol(&b, &s).await;
    let secret = totp_rs::Secret::Encoded(app.secret.clone()).to_bytes().unwrap();

    let conn = rusqlite::Connection::open(s.data_dir.join("fanhub.db")).unwrap();
    let sealed: Vec<u8> =
        conn.query_row("SELECT sealed FROM totp_factors WHERE user_id = ?1", [id], |r| r.get(0)).unwrap();
    assert_eq!(sealed.len(), 12 + secret.len() + 16, "nonce, sealed secret, tag");
    assert!(!sealed.windows(secret.len()).any(|w| w == secret.as_slice()), "the row holds the secret in clear");
    drop(conn);

    // Nowhere in the data dir (the database, its WAL, backups) but under the key.
    let mut files = vec![s.data_dir.clone()];
    let mut scanned = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        scanned += 1;
        let name = path.display();
        assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_slice()), "{name} holds the secret's bytes");
        assert!(!bytes.windows(app.secret.len()).any(|w| w == app.secret.as_bytes()), "{name} holds it in base32");
        for code in &app.recovery_codes {
            assert!(!bytes.windows(code.len()).any(|w| w == code.as_bytes()), "{name} holds a recovery code");
        }
    }
    assert!(scanned >= 2, "the database and the key file at least");
    assert!(!s.stderr().contains(&app.secret), "the log holds the secret");

    let key_file = s.data_dir.join("second-factor.key");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    let hex_key = std::fs::read_to_string(&key_file).unwrap();
    assert_eq!(hex_key.trim().len(), 64, "32 bytes as hex");
}

#[tokio::test]
async fn a_sign_in_waiting_for_its_code_does_not_complete_once_the_account_is_suspended() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, id) = staff_account(&s, &key, "soon_suspended", "moderator", "127.0.0.1").await;
    let app = enrol(&b, &s).await;
    let c = pending_sign_in(&s, "soon_suspended", "127.0.0.2").await;
    let res = client()
        .patch(s.url(&format!("/api/admin/users/{id}/suspend")))
        .header("x-admin-key", &key)
        .json(&json!({"isActive": false}))
        .send()
        .await
        .unwrap();
    // (A moderator: the last active admin cannot be suspended.)
    assert_eq!(res.status(), StatusCode::OK);
    let res = second_factor(&c, &s, &app.recovery_codes[0]).await;
    let (status, cookies) = (res.status(), set_cookies(&res));
    let body = res.text().await.unwrap();
    // The password step answers a suspended account 403; the code step must not sign it in.
    assert!(
        status == StatusCode::FORBIDDEN || status == StatusCode::UNAUTHORIZED,
        "a suspended account's code: {status} {body}"
    );
    assert!(!cookies.iter().any(|(n, _)| n == "fanhub_session"), "{cookies:?}");
    let logs =
        json(client().get(s.url("/api/admin/login-logs")).header("x-admin-key", &key).send().await.unwrap()).await;
    let successes = logs["logs"].as_array().unwrap().iter().filter(|l| l["loginStatus"] == "success").count();
    assert_eq!(successes, 1, "only the sign-in before the suspension: {logs}");
}

/// Wrong passwords sent for the name from elsewhere hold back sign-ins from new browsers, never
/// the signed-in owner's own re-check of the password (the third review made six and the owner's
/// right password answered 429).
#[tokio::test]
async fn strangers_guessing_the_name_cannot_block_the_owners_password_recheck() {
    let s = Server::start();
    let key = admin_key(&s);
    let (b, _) = staff_account(&s, &key, "recheck_admin", "admin", "127.0.0.1").await;
    enrol(&b, &s).await;
    for n in 2..8 {
        let stranger = browser_from(&s, &format!("127.0.0.{n}"));
        let status = login(&stranger, &s, "recheck_admin", "a stranger's guess").await.status();
        assert!(status == StatusCode::UNAUTHORIZED || status == StatusCode::TOO_MANY_REQUESTS, "guess {n}: {status}");
    }
    let late = browser_from(&s, "127.0.0.9");
    assert_eq!(
        login(&late, &s, "recheck_admin", PASSWORD).await.status(),
        StatusCode::TOO_MANY_REQUESTS,
        "the precondition: the name is held back"
    );
    let res = b
        .post(s.url("/api/account/second-factors/recovery-codes"))
        .json(&json!({"password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK, "the owner's own re-check goes through");
}
