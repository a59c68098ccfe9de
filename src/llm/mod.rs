//! One small client for an OpenAI-compatible chat-completions server (OpenAI, a local llama.cpp
//! or Ollama): JSON mode, a timeout, the answer parsed and checked before anyone uses it.
//! Configured with FANHUB_LLM_URL (the base that `/chat/completions` is appended to, e.g.
//! `http://127.0.0.1:11434/v1`), FANHUB_LLM_MODEL and FANHUB_LLM_KEY. Calls leave through the
//! shared outbound client: no redirect to another host (the key stays with its host), answers
//! of at most 4 MiB. Callers always have a
//! fallback: every failure is an `LlmError`, never a panic or a hang.

use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;

pub use crate::config::LlmConfig;

pub const TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LlmError {
    #[error("the language model did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the language model could not be reached: {0}")]
    Unreachable(String),
    #[error("the language model answered HTTP {status}: {message}")]
    Status { status: u16, message: String },
    #[error("the language model's answer was cut off (finish_reason length)")]
    Truncated,
    #[error("the language model's answer is not the JSON asked for: {0}")]
    BadAnswer(String),
}

#[derive(Clone)]
pub struct LlmClient {
    http: reqwest::Client,
    config: LlmConfig,
    timeout: Duration,
    /// Where each call is counted (the server's; none in tools and tests).
    jobs: Option<crate::jobs::Jobs>,
}

#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: Message,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Message {
    content: Option<String>,
}

impl LlmClient {
    pub fn new(config: LlmConfig, timeout: Duration) -> Self {
        let http = crate::outbound::client(timeout, crate::outbound::USER_AGENT);
        Self { http, config, timeout, jobs: None }
    }

    /// Counts each call, and each failed one as a warning, in `jobs` (admin health, metrics).
    pub fn reporting_to(mut self, jobs: crate::jobs::Jobs) -> Self {
        self.jobs = Some(jobs);
        self
    }

    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// Asks for a JSON object (the prompts must say "JSON") and returns it parsed as `T`.
    pub async fn json<T: DeserializeOwned>(&self, system: &str, user: &str, max_tokens: u32) -> Result<T, LlmError> {
        let result = self.ask(system, user, max_tokens).await;
        if let Some(jobs) = &self.jobs {
            use crate::jobs::Outcome;
            // An answer the site cannot use still means the service answered.
            let failed = matches!(
                &result,
                Err(LlmError::Timeout(_) | LlmError::Unreachable(_)) | Err(LlmError::Status { status: 500.., .. })
            );
            let throttled = matches!(&result, Err(LlmError::Status { status: 429, .. }));
            let outcome = if failed {
                Outcome::Failed
            } else if throttled {
                Outcome::Throttled
            } else {
                Outcome::Ok
            };
            jobs.upstream_call("llm", "chat/completions", outcome);
            if let (true, Err(e)) = (failed, &result) {
                jobs.upstream_failed("llm", e);
            }
        }
        result
    }

    async fn ask<T: DeserializeOwned>(&self, system: &str, user: &str, max_tokens: u32) -> Result<T, LlmError> {
        let body = serde_json::json!({
            "model": self.config.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "response_format": {"type": "json_object"},
            "temperature": 0.2,
            "max_tokens": max_tokens,
        });
        let mut request = self.http.post(format!("{}/chat/completions", self.config.base_url)).json(&body);
        if let Some(key) = &self.config.key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| self.transport(e.into()))?;
        let (status, text) = crate::outbound::read_text(response).await.map_err(|e| self.transport(e))?;
        if !status.is_success() {
            let message = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
                .unwrap_or_else(|| text.chars().take(200).collect());
            return Err(LlmError::Status { status: status.as_u16(), message });
        }
        let completion: Completion =
            serde_json::from_str(&text).map_err(|e| LlmError::BadAnswer(format!("not a chat completion ({e})")))?;
        let choice = completion.choices.into_iter().next().ok_or_else(|| LlmError::BadAnswer("no choices".into()))?;
        if choice.finish_reason.as_deref() == Some("length") {
            return Err(LlmError::Truncated);
        }
        let content = choice.message.content.unwrap_or_default();
        serde_json::from_str(content.trim()).map_err(|e| LlmError::BadAnswer(e.to_string()))
    }

    /// A failed send or read (the words never carry the URL: it may carry credentials).
    fn transport(&self, failure: crate::outbound::Failure) -> LlmError {
        match failure {
            crate::outbound::Failure::Timeout => LlmError::Timeout(self.timeout),
            crate::outbound::Failure::Unreachable(why) => LlmError::Unreachable(why),
            too_long @ crate::outbound::Failure::TooLong(_) => LlmError::BadAnswer(too_long.to_string()),
        }
    }
}

/// Makes ring the TLS crypto provider of the process (once; later calls do nothing).
pub fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
