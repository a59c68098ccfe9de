//! The command line and environment: everything fixed at start.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use ipnet::IpNet;

mod features;
mod secrets;

pub use features::{BackupOptions, MetricsOptions, parse_every};
pub use secrets::{DISCORD_DEFAULT_API, DiscordConfig, LlmConfig, OpenCloudKey, RobloxCookie, SECRET_VARS, secret_var};

/// Roblox's legacy hosts: `{service}` becomes users, badges, thumbnails, groups.
pub const ROBLOX_DEFAULT_API_TEMPLATE: &str = "https://{service}.roblox.com";
/// Roblox Open Cloud's base URL.
pub const ROBLOX_DEFAULT_OPEN_CLOUD_API: &str = "https://apis.roblox.com";

/// `fanhub --version`: the version, the commit, the build date and the target (set by build.rs).
pub const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("FANHUB_COMMIT"),
    ", built ",
    env!("FANHUB_BUILD_DATE"),
    ", ",
    env!("FANHUB_TARGET"),
    ")"
);

#[derive(Debug, Parser)]
#[command(name = "fanhub", version = VERSION_LINE, about = "A self-hosted fan-community site in one binary")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub options: Options,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the site and the API (the default).
    Serve,
    /// Create a lifetime admin key (not bound to an IP) and print it once.
    AdminKey {
        /// A name to recognise the key by in the admin panel.
        #[arg(long, default_value = "Created with fanhub admin-key")]
        name: String,
    },
    /// Write a consistent copy of the live database to FILE (safe while serving).
    Backup { file: PathBuf },
    /// Check a setup before going live (site file, data dir, database, replication, listen
    /// address, upstreams); safe next to a running server. Exit code 1 when a check fails.
    Doctor(DoctorOptions),
    /// Put a backup (an archive from DATA_DIR/backups/ or a database file) in place of the data dir's database; the server must be stopped.
    Restore { file: PathBuf },
    /// Discord set-up tasks.
    #[command(subcommand)]
    Discord(DiscordCommand),
}

/// What `fanhub doctor` checks beyond the defaults.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DoctorOptions {
    /// Also read the whole database file (`PRAGMA quick_check`, about 4 s a GB, no time limit);
    /// by default doctor opens it and reads its schema only, so it ends within 15 s at any size.
    #[arg(long)]
    pub full: bool,
    /// The Litestream config that may name the database (`litestream replicate` reads the same:
    /// $LITESTREAM_CONFIG, else /etc/litestream.yml).
    #[arg(long = "litestream-config", env = "LITESTREAM_CONFIG")]
    pub litestream_config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum DiscordCommand {
    /// Register the /newgen and /check slash commands for an application (FANHUB_DISCORD_TOKEN
    /// must be that application's bot token).
    RegisterCommands {
        /// The application id (Developer Portal, General Information).
        #[arg(long, env = "FANHUB_DISCORD_APPLICATION_ID")]
        application_id: String,
        /// Register in one server only (appears at once) instead of globally.
        #[arg(long)]
        guild_id: Option<String>,
    },
}

#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// Listen address; port 0 picks a free port.
    #[arg(long, env = "FANHUB_ADDR", default_value = "127.0.0.1:8080", global = true)]
    pub addr: SocketAddr,
    /// Holds fanhub.db (SQLite, WAL) and uploads/.
    #[arg(long, env = "FANHUB_DATA_DIR", default_value = "./fanhub-data", global = true)]
    pub data_dir: PathBuf,
    /// Use a fresh temporary data dir, deleted on exit (for testers and demos).
    #[arg(long, global = true)]
    pub temp: bool,
    /// Site settings file replacing the bundled data/site.toml.
    #[arg(long, env = "FANHUB_SITE", global = true)]
    pub site: Option<PathBuf>,
    /// CIDRs whose X-Forwarded-For is believed (comma-separated). Otherwise the client IP is the socket peer.
    #[arg(long = "trusted-proxy", env = "FANHUB_TRUSTED_PROXIES", value_delimiter = ',', global = true)]
    pub trusted_proxies: Vec<IpNet>,
    #[command(flatten)]
    pub backups: BackupOptions,
    #[command(flatten)]
    pub metrics: MetricsOptions,
    /// Roblox host template: `{service}` becomes users, badges, thumbnails, groups (e.g.
    /// `https://{service}.roproxy.com`, or a fake's `http://127.0.0.1:PORT/{service}`).
    #[arg(long, env = "FANHUB_ROBLOX_API", default_value = ROBLOX_DEFAULT_API_TEMPLATE, global = true)]
    pub roblox_api: String,
    /// Roblox Open Cloud's base URL (the client appends `/cloud/v2/...`); used only with
    /// FANHUB_ROBLOX_OPEN_CLOUD_KEY.
    #[arg(long, env = "FANHUB_ROBLOX_OPEN_CLOUD_API", default_value = ROBLOX_DEFAULT_OPEN_CLOUD_API, global = true)]
    pub roblox_open_cloud_api: String,
    /// Timeout of each Roblox call, in milliseconds.
    #[arg(long, env = "FANHUB_ROBLOX_TIMEOUT_MS", default_value_t = 8000, global = true)]
    pub roblox_timeout_ms: u64,
    /// Open connections at most; further ones wait to be accepted until one closes.
    #[arg(long, env = "FANHUB_MAX_CONNECTIONS", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..=1_000_000), global = true)]
    pub max_connections: u32,
    /// Open connections at most from one address (through a trusted proxy: requests at once from
    /// one forwarded address); more are answered 429. 0: a quarter of --max-connections.
    #[arg(long, env = "FANHUB_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 0, global = true)]
    pub max_connections_per_address: u32,
    /// Bytes a second a request body must average once the read timeout has passed (and it may
    /// never stay silent for as long); a slower one is answered 408 and its connection closed.
    #[arg(long, env = "FANHUB_MIN_BODY_RATE", default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..), global = true)]
    pub min_body_rate: u64,
    /// Wrong X-API-Key values one address may send a minute; past them, its keyed calls answer 429
    /// until the minute is over. (Wrong X-Admin-Key values: 10 a minute, fixed.)
    #[arg(long, env = "FANHUB_WRONG_API_KEYS_PER_MINUTE", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..), global = true)]
    pub wrong_api_keys_per_minute: u32,
    /// Admin accounts reach the admin panel only once they have a second factor (an authenticator
    /// app or a security key); until then they sign in and are sent to add one. Admin keys are
    /// not accounts: `fanhub admin-key` stays the way in for a host who lost everything.
    #[arg(long, env = "FANHUB_REQUIRE_SECOND_FACTOR", global = true)]
    pub require_second_factor: bool,
    /// Seconds a client may take to send a request's headers (an idle keep-alive connection is
    /// closed after as long), may stay silent in the middle of a request body, and may take
    /// nothing of a database download before its copy is closed and removed.
    #[arg(long, env = "FANHUB_READ_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600), global = true)]
    pub read_timeout_secs: u64,
}

impl Options {
    /// The defaults (and the environment's FANHUB_* settings), listening on a free loopback port,
    /// with `data_dir`: for tests and benchmarks that build a state in process.
    pub fn for_data_dir(data_dir: &std::path::Path) -> Self {
        let data_dir = data_dir.display().to_string();
        Cli::parse_from(["fanhub", "--addr", "127.0.0.1:0", "--data-dir", &data_dir]).options
    }
}

/// Settings read from the environment only (secrets stay out of argv and `ps`).
#[derive(Clone, Default)]
pub struct Secrets {
    pub admin_phrase: Option<String>,
    /// FANHUB_LLM_URL, FANHUB_LLM_MODEL, FANHUB_LLM_KEY.
    pub llm: Option<LlmConfig>,
    /// FANHUB_ROBLOX_COOKIE: a `.ROBLOSECURITY` value, sent only to the Roblox hosts.
    pub roblox_cookie: Option<RobloxCookie>,
    /// FANHUB_ROBLOX_OPEN_CLOUD_KEY: a Roblox Open Cloud API key, sent only to Open Cloud.
    pub roblox_open_cloud_key: Option<OpenCloudKey>,
    /// FANHUB_ROBLOX_OPEN_CLOUD_KEY is set to something that cannot be a key (the start refuses it).
    pub roblox_open_cloud_key_malformed: bool,
    /// FANHUB_DISCORD_TOKEN, FANHUB_DISCORD_API, FANHUB_DISCORD_PUBLIC_KEY, FANHUB_DISCORD_APPLICATION_ID.
    pub discord: DiscordConfig,
}

/// The shortest FANHUB_ADMIN_PHRASE the server starts with: the phrase is guessed against a
/// per-address limit, and IPv6 clients have many addresses.
pub const MIN_ADMIN_PHRASE_CHARS: usize = 16;

impl Secrets {
    /// Refuses settings the server must not start with.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(phrase) = &self.admin_phrase
            && phrase.trim().chars().count() < MIN_ADMIN_PHRASE_CHARS
        {
            return Err(format!("FANHUB_ADMIN_PHRASE must be at least {MIN_ADMIN_PHRASE_CHARS} characters long"));
        }
        if self.roblox_open_cloud_key_malformed {
            return Err("FANHUB_ROBLOX_OPEN_CLOUD_KEY is not an Open Cloud API key (it has spaces or control characters, or is longer than 4,096 characters): copy the key again from the Creator Dashboard, or unset it".into());
        }
        Ok(())
    }

    pub fn from_env() -> Self {
        let admin_phrase = secrets::secret_var("FANHUB_ADMIN_PHRASE");
        let roblox_cookie = secrets::secret_var("FANHUB_ROBLOX_COOKIE").and_then(|c| RobloxCookie::new(&c));
        let open_cloud_key = secrets::secret_var("FANHUB_ROBLOX_OPEN_CLOUD_KEY");
        let roblox_open_cloud_key = open_cloud_key.as_deref().and_then(OpenCloudKey::new);
        let roblox_open_cloud_key_malformed = open_cloud_key.is_some() && roblox_open_cloud_key.is_none();
        Self {
            admin_phrase,
            llm: LlmConfig::from_env(),
            roblox_cookie,
            roblox_open_cloud_key,
            roblox_open_cloud_key_malformed,
            discord: DiscordConfig::from_env(),
        }
    }
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secrets")
            .field("admin_phrase", &self.admin_phrase.as_ref().map(|_| "***"))
            .field("llm", &self.llm)
            .field("roblox_cookie", &self.roblox_cookie)
            .field("roblox_open_cloud_key", &self.roblox_open_cloud_key)
            .field("discord", &self.discord)
            .finish()
    }
}
