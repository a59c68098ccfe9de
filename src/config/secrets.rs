//! Settings read from the environment only (secrets stay out of argv and `ps`), and the types
//! that keep each secret out of logs: their `Debug` prints `***`.

/// The `.ROBLOSECURITY` cookie: never printed, never logged.
#[derive(Clone)]
pub struct RobloxCookie(String);

impl RobloxCookie {
    pub fn new(value: &str) -> Option<Self> {
        let v = value.trim().trim_start_matches(".ROBLOSECURITY=").trim();
        (!v.is_empty() && !v.contains(['\r', '\n', ';'])).then(|| Self(v.to_string()))
    }

    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for RobloxCookie {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RobloxCookie(***)")
    }
}

/// The Open Cloud API key (`FANHUB_ROBLOX_OPEN_CLOUD_KEY`): never printed, never logged, sent
/// only to the Open Cloud API.
#[derive(Clone)]
pub struct OpenCloudKey(String);

impl OpenCloudKey {
    pub fn new(value: &str) -> Option<Self> {
        let v = value.trim();
        (!v.is_empty() && v.len() <= 4096 && v.bytes().all(|b| b.is_ascii_graphic())).then(|| Self(v.to_string()))
    }

    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for OpenCloudKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OpenCloudKey(***)")
    }
}

#[derive(Clone)]
pub struct LlmConfig {
    pub base_url: String,
    pub model: String,
    pub key: Option<String>,
}

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "***"))
            .finish()
    }
}

/// The variables that hold secrets: each may also come as a systemd credential of the same name
/// (`LoadCredential=FANHUB_ADMIN_PHRASE:/etc/fanhub/admin-phrase`), which no `systemctl show`
/// prints, and `fanhub doctor` warns when one sits in a file or unit others can read.
pub const SECRET_VARS: [&str; 5] = [
    "FANHUB_ADMIN_PHRASE",
    "FANHUB_ROBLOX_COOKIE",
    "FANHUB_ROBLOX_OPEN_CLOUD_KEY",
    "FANHUB_LLM_KEY",
    "FANHUB_DISCORD_TOKEN",
];

/// A secret's value: the environment variable `name`, else the systemd credential `name` (the
/// file of that name in `$CREDENTIALS_DIRECTORY`), trimmed; None when neither is set or empty.
pub fn secret_var(name: &str) -> Option<String> {
    let from_env = std::env::var(name).ok();
    let value = from_env.or_else(|| {
        let dir = std::env::var_os("CREDENTIALS_DIRECTORY")?;
        std::fs::read_to_string(std::path::Path::new(&dir).join(name)).ok()
    })?;
    let value = value.trim().to_string();
    (!value.is_empty()).then_some(value)
}

impl LlmConfig {
    /// From the environment; None unless FANHUB_LLM_URL is set.
    pub fn from_env() -> Option<Self> {
        let var = |name: &str| std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let base_url = var("FANHUB_LLM_URL")?.trim_end_matches('/').to_string();
        Some(Self {
            base_url,
            model: var("FANHUB_LLM_MODEL").unwrap_or_else(|| "gpt-4o-mini".into()),
            key: secret_var("FANHUB_LLM_KEY"),
        })
    }
}

/// Discord's API base unless FANHUB_DISCORD_API names another (a fake, in tests).
pub const DISCORD_DEFAULT_API: &str = "https://discord.com/api/v10";

/// FANHUB_DISCORD_TOKEN, FANHUB_DISCORD_API, FANHUB_DISCORD_PUBLIC_KEY, FANHUB_DISCORD_APPLICATION_ID.
#[derive(Clone, Default)]
pub struct DiscordConfig {
    pub token: Option<String>,
    pub api_base: Option<String>,
    /// The application's Ed25519 public key, hex (Developer Portal, General Information).
    pub public_key: Option<String>,
    pub application_id: Option<String>,
}

impl std::fmt::Debug for DiscordConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiscordConfig")
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("api_base", &self.api_base)
            .field("public_key", &self.public_key)
            .field("application_id", &self.application_id)
            .finish()
    }
}

impl DiscordConfig {
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        Self {
            token: secret_var("FANHUB_DISCORD_TOKEN"),
            api_base: var("FANHUB_DISCORD_API"),
            public_key: var("FANHUB_DISCORD_PUBLIC_KEY"),
            application_id: var("FANHUB_DISCORD_APPLICATION_ID"),
        }
    }

    pub fn api_base(&self) -> &str {
        self.api_base.as_deref().unwrap_or(DISCORD_DEFAULT_API)
    }
}
