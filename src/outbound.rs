//! Every HTTP call the site makes to another service (Roblox, Discord, the language model, the
//! doctor's checks) leaves through a client built here: a timeout on the whole call and a
//! shorter one on connecting, a User-Agent, redirects followed only on the same host (a
//! credential — a cookie, an `x-api-key`, a bearer token — is never carried to another host:
//! the redirect is handed back unfollowed and [`redirected_elsewhere`] names where it pointed),
//! answers read with a size cap, and one mapping of a failed send or read into words without
//! the URL (it can carry a token).

use std::time::Duration;

use axum::body::Bytes;
use reqwest::StatusCode;

/// The largest answer read from another service; a longer one is refused as unreadable (a page
/// of ten thousand Roblox inventory items still fits; an endless body does not fill the memory).
pub const MAX_ANSWER_BYTES: usize = 4 << 20;
/// The longest connection setup, whatever the call's own timeout.
const MAX_CONNECT: Duration = Duration::from_secs(5);
/// Redirects followed on the same host, at most.
const MAX_REDIRECTS: usize = 5;

/// A client with `timeout` on each call and `user_agent`; redirects to another host are not
/// followed (the 3xx answer comes back to the caller).
pub fn client(timeout: Duration, user_agent: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(MAX_CONNECT))
        .redirect(same_host_only())
        .user_agent(user_agent)
        .build()
        .expect("an HTTP client with rustls")
}

/// A client with `timeout` on each call that follows no redirect at all (a fan's Discord
/// webhook: the URL was checked, where it might point to was not).
pub fn client_without_redirects(timeout: Duration, user_agent: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(MAX_CONNECT))
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(user_agent)
        .build()
        .expect("an HTTP client with rustls")
}

/// The User-Agent of the site's own calls.
pub const USER_AGENT: &str = concat!("fanhub/", env!("CARGO_PKG_VERSION"));

/// Follows a redirect only to the same host and port (or from http to https on the same host),
/// so the headers that carry credentials only ever reach the host they were meant for.
fn same_host_only() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let Some(first) = attempt.previous().first() else { return attempt.stop() };
        if attempt.previous().len() > MAX_REDIRECTS || !same_host(first, attempt.url()) {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

fn same_host(from: &reqwest::Url, to: &reqwest::Url) -> bool {
    let upgrade = from.scheme() == "http" && to.scheme() == "https";
    from.host_str() == to.host_str()
        && (upgrade || (from.scheme() == to.scheme() && from.port_or_known_default() == to.port_or_known_default()))
}

/// When `response` is a redirect that was not followed because it points to another host: that
/// host (and port), for the caller to report. None for any other answer.
pub fn redirected_elsewhere(response: &reqwest::Response) -> Option<String> {
    if !response.status().is_redirection() {
        return None;
    }
    let location = response.headers().get(reqwest::header::LOCATION)?.to_str().ok()?;
    let target = response.url().join(location).ok()?;
    if same_host(response.url(), &target) {
        return None;
    }
    let host = target.host_str().unwrap_or("an unnamed host");
    Some(match target.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    })
}

/// Why a call got no readable answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Failure {
    #[error("no answer within the time limit")]
    Timeout,
    /// The transport error with its causes (reqwest's own text stops at "error sending
    /// request"), without the URL.
    #[error("{0}")]
    Unreachable(String),
    #[error("an answer longer than {} MiB", .0 >> 20)]
    TooLong(usize),
}

impl From<reqwest::Error> for Failure {
    fn from(e: reqwest::Error) -> Self {
        if e.is_timeout() {
            return Self::Timeout;
        }
        let e = e.without_url();
        let mut parts = vec![e.to_string()];
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            parts.push(s.to_string());
            source = s.source();
        }
        Self::Unreachable(parts.join(": "))
    }
}

/// Reads the whole body, refusing one longer than `cap` bytes (told by its length, or found
/// while reading, so an endless body stops at the cap).
pub async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<Bytes, Failure> {
    if response.content_length().is_some_and(|n| n > cap as u64) {
        return Err(Failure::TooLong(cap));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > cap {
            return Err(Failure::TooLong(cap));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(body))
}

/// The status and the body (at most [`MAX_ANSWER_BYTES`]) as text, lossily decoded.
pub async fn read_text(response: reqwest::Response) -> Result<(StatusCode, String), Failure> {
    let status = response.status();
    let body = read_capped(response, MAX_ANSWER_BYTES).await?;
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_the_host_they_started_on() {
        let url = |s: &str| reqwest::Url::parse(s).unwrap();
        assert!(same_host(&url("https://a.example/x"), &url("https://a.example/y")));
        assert!(same_host(&url("http://a.example/x"), &url("https://a.example/x")), "an upgrade to https");
        assert!(!same_host(&url("https://a.example/x"), &url("http://a.example/x")), "no downgrade");
        assert!(!same_host(&url("https://a.example/x"), &url("https://b.example/x")));
        assert!(!same_host(&url("http://127.0.0.1:1/x"), &url("http://127.0.0.1:2/x")), "another port");
        assert!(!same_host(&url("https://a.example/x"), &url("https://a.example.evil/x")));
    }

    #[test]
    fn failures_read_as_words() {
        assert_eq!(Failure::TooLong(MAX_ANSWER_BYTES).to_string(), "an answer longer than 4 MiB");
    }
}
