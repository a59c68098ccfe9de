//! The command line and environment: everything fixed at start.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use ipnet::IpNet;

#[derive(Debug, Parser)]
#[command(name = "fanhub", version, about = "A self-hosted fan-community site in one binary")]
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
    /// Discord set-up tasks.
    #[command(subcommand)]
    Discord(DiscordCommand),
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
}

/// Settings read from the environment only (secrets stay out of argv and `ps`).
#[derive(Clone, Default)]
pub struct Secrets {
    pub admin_phrase: Option<String>,
    /// FANHUB_LLM_URL, FANHUB_LLM_MODEL, FANHUB_LLM_KEY.
    pub llm: Option<crate::llm::LlmConfig>,
    /// FANHUB_DISCORD_TOKEN, FANHUB_DISCORD_API, FANHUB_DISCORD_PUBLIC_KEY, FANHUB_DISCORD_APPLICATION_ID.
    pub discord: crate::discord::DiscordConfig,
}

impl Secrets {
    pub fn from_env() -> Self {
        let admin_phrase = std::env::var("FANHUB_ADMIN_PHRASE").ok().filter(|p| !p.trim().is_empty());
        Self {
            admin_phrase,
            llm: crate::llm::LlmConfig::from_env(),
            discord: crate::discord::DiscordConfig::from_env(),
        }
    }
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secrets")
            .field("admin_phrase", &self.admin_phrase.as_ref().map(|_| "***"))
            .field("llm", &self.llm)
            .field("discord", &self.discord)
            .finish()
    }
}
