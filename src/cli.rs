//! The `fanhub` command: parse, then serve, create an admin key, or back up.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::config::{Cli, Command, Options, Secrets};
use crate::db::Db;
use crate::logging::{self, LogBuffer};
use crate::server::{self, StartError};

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.render().to_string();
            let line = text.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ");
            eprintln!("fanhub: {line} (see fanhub --help)");
            return ExitCode::from(2);
        }
    };
    let logs = LogBuffer::default();
    logging::init(logs.clone());
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => run_serve(cli.options, logs),
        Command::AdminKey { name } => run_admin_key(&cli.options, &name),
        Command::Backup { file } => run_backup(&cli.options, &file),
        Command::Doctor(doctor) => return crate::doctor::run(&cli.options, &doctor, Secrets::from_env()),
        Command::Restore { file } => crate::backup::restore::run(&cli.options, &file).map_err(StartError),
        Command::Discord(crate::config::DiscordCommand::RegisterCommands { application_id, guild_id }) => {
            run_register_commands(&application_id, guild_id.as_deref())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fanhub: {e}");
            ExitCode::from(2)
        }
    }
}

/// A data dir ready for use: existing and writable, or newly made (and removed again if the
/// start fails, so a failed start leaves nothing behind).
struct DataDir {
    path: PathBuf,
    created: bool,
    _temp: Option<tempfile::TempDir>,
}

impl DataDir {
    fn prepare(options: &Options) -> Result<Self, StartError> {
        if options.temp {
            let temp = tempfile::Builder::new()
                .prefix("fanhub-")
                .tempdir()
                .map_err(|e| StartError(format!("cannot create a temporary data dir: {e}")))?;
            let path = temp.path().to_path_buf();
            std::fs::create_dir(path.join("uploads"))
                .map_err(|e| StartError(format!("cannot create uploads dir: {e}")))?;
            return Ok(Self { path, created: true, _temp: Some(temp) });
        }
        let path = options.data_dir.clone();
        let fail = |why: String| StartError(format!("cannot use data dir {}: {why}", path.display()));
        let created = if path.exists() {
            if !path.is_dir() {
                return Err(fail("it is not a directory".into()));
            }
            false
        } else {
            std::fs::create_dir(&path).map_err(|e| fail(e.to_string()))?;
            true
        };
        let dir = Self { path: path.clone(), created, _temp: None };
        let probe = path.join(".fanhub-write-test");
        std::fs::write(&probe, b"ok").map_err(|e| fail(format!("not writable ({e})")))?;
        let _ = std::fs::remove_file(&probe);
        let uploads = path.join("uploads");
        if !uploads.is_dir() {
            std::fs::create_dir(&uploads).map_err(|e| fail(format!("cannot create uploads/ ({e})")))?;
        }
        Ok(dir)
    }

    /// Undoes what `prepare` created, after a failed start.
    fn abandon(self) {
        if self.created && self._temp.is_none() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, StartError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| StartError(format!("cannot start the async runtime: {e}")))
}

fn run_serve(options: Options, logs: LogBuffer) -> Result<(), StartError> {
    // Check the site file before touching the disk.
    crate::site::load(options.site.as_deref()).map_err(|e| StartError(e.to_string()))?;
    let secrets = Secrets::from_env();
    secrets.validate().map_err(StartError)?;
    let data_dir = DataDir::prepare(&options)?;
    let rt = runtime()?;
    let addr = options.addr;
    let started = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| StartError(format!("cannot listen on {addr}: {e}")))?;
        let state = server::build_state(options, secrets, data_dir.path.clone(), logs)?;
        Ok::<_, StartError>((listener, state, shutdown_signal()?))
    });
    let (listener, state, shutdown) = match started {
        Ok(v) => v,
        Err(e) => {
            data_dir.abandon();
            return Err(e);
        }
    };
    let local = listener.local_addr().map_err(|e| StartError(e.to_string()))?;
    println!("fanhub listening on http://{local}");
    tracing::info!("serving data dir {}", data_dir.path.display());
    rt.block_on(server::serve(state, listener, shutdown)).map_err(|e| StartError(format!("server error: {e}")))?;
    tracing::info!("stopped cleanly");
    drop(data_dir);
    Ok(())
}

/// Registers SIGINT and SIGTERM handlers now (before the listening line is printed, so an
/// early signal is never missed) and returns the future that resolves on the first of them.
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()> + Send + 'static, StartError> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let register = |kind| signal(kind).map_err(|e| StartError(format!("cannot handle signals: {e}")));
        let mut term = register(SignalKind::terminate())?;
        let mut int = register(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {},
                _ = int.recv() => {},
            }
            tracing::info!("shutting down: finishing requests in flight");
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down: finishing requests in flight");
    })
}

fn open_existing_db(options: &Options) -> Result<Db, StartError> {
    let path = crate::db::database_path(&options.data_dir);
    if !path.is_file() {
        return Err(StartError(format!("no database at {} (start fanhub once, or pass --data-dir)", path.display())));
    }
    Db::open(&path).map_err(|e| StartError(format!("{}: {e}", path.display())))
}

fn run_backup(options: &Options, file: &Path) -> Result<(), StartError> {
    let db = open_existing_db(options)?;
    crate::backup::copy_database(&db, file)
        .map_err(|e| StartError(format!("backup to {} refused: {e}", file.display())))?;
    println!("backup written to {}", file.display());
    Ok(())
}

fn run_admin_key(options: &Options, name: &str) -> Result<(), StartError> {
    if options.temp {
        return Err(StartError("admin-key needs the data dir of the running site, not --temp".into()));
    }
    let data_dir = DataDir::prepare(options)?;
    let db = match Db::open(&crate::db::database_path(&data_dir.path)) {
        Ok(db) => db,
        Err(e) => {
            data_dir.abandon();
            return Err(StartError(e.to_string()));
        }
    };
    let key = db
        .write_blocking(|tx| crate::accounts::admin_keys::store::create(tx, name, "cli", None))
        .map_err(|e| StartError(format!("cannot create the key: {}", e.internal.unwrap_or(e.body.error))))?;
    println!("{key}");
    eprintln!("This admin key is shown once. Open /admin and enter it, or send it as the X-Admin-Key header.");
    Ok(())
}

/// Registers /newgen and /check for the application whose bot token is FANHUB_DISCORD_TOKEN.
fn run_register_commands(application_id: &str, guild_id: Option<&str>) -> Result<(), StartError> {
    let config = crate::discord::DiscordConfig::from_env();
    let Some(token) = config.token.clone() else {
        return Err(StartError("set FANHUB_DISCORD_TOKEN to the application's bot token".into()));
    };
    for (name, id) in [("--application-id", Some(application_id)), ("--guild-id", guild_id)] {
        if let Some(id) = id
            && !(id.len() <= 20 && !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(StartError(format!("{name} must be a Discord id (digits only)")));
        }
    }
    crate::llm::install_crypto();
    let client = crate::discord::client::DiscordClient::new(
        config.api_base(),
        Some(token),
        "https://github.com/fanhub",
        Default::default(),
    );
    let commands = crate::discord::interactions::command_definitions();
    let registered = runtime()?
        .block_on(client.put_commands(application_id, guild_id, &commands))
        .map_err(|e| StartError(format!("Discord refused the commands: {e}")))?;
    let names: Vec<&str> = registered.as_array().into_iter().flatten().filter_map(|c| c["name"].as_str()).collect();
    let place =
        guild_id.map_or("globally (may take up to an hour to appear)".to_string(), |g| format!("in server {g}"));
    println!("registered /{} {place}", names.join(" and /"));
    Ok(())
}
