//! Logging: human-readable lines on stderr, and a ring buffer of recent records with running
//! counts per level that the admin panel reads (App Logs, Exceptions).

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

const CAPACITY: usize = 500;

#[derive(Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogRecord {
    pub id: u64,
    #[schema(format = DateTime)]
    pub timestamp: String,
    #[schema(schema_with = level_values)]
    pub level: &'static str,
    pub target: String,
    pub message: String,
}

fn level_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["ERROR", "WARN", "INFO", "DEBUG", "TRACE"])
}

#[derive(Clone, Copy, Serialize, Default)]
pub struct LevelCounts {
    pub errors: u64,
    pub warnings: u64,
    pub info: u64,
}

#[derive(Default)]
struct BufferInner {
    records: Mutex<VecDeque<LogRecord>>,
    next_id: AtomicU64,
    errors: AtomicU64,
    warnings: AtomicU64,
    info: AtomicU64,
}

/// Recent log records kept in memory (the last 500 at INFO and above).
#[derive(Clone, Default)]
pub struct LogBuffer(Arc<BufferInner>);

impl LogBuffer {
    /// Newest first.
    pub fn recent(&self, limit: usize) -> Vec<LogRecord> {
        let records = self.0.records.lock().unwrap_or_else(|p| p.into_inner());
        records.iter().rev().take(limit).cloned().collect()
    }

    pub fn counts(&self) -> LevelCounts {
        LevelCounts {
            errors: self.0.errors.load(Ordering::Relaxed),
            warnings: self.0.warnings.load(Ordering::Relaxed),
            info: self.0.info.load(Ordering::Relaxed),
        }
    }

    pub fn push(&self, level: Level, target: &str, message: String) {
        let level_name = match level {
            Level::ERROR => {
                self.0.errors.fetch_add(1, Ordering::Relaxed);
                "ERROR"
            }
            Level::WARN => {
                self.0.warnings.fetch_add(1, Ordering::Relaxed);
                "WARN"
            }
            _ => {
                self.0.info.fetch_add(1, Ordering::Relaxed);
                "INFO"
            }
        };
        let record = LogRecord {
            id: self.0.next_id.fetch_add(1, Ordering::Relaxed) + 1,
            timestamp: crate::time::now_text(),
            level: level_name,
            target: target.to_string(),
            message,
        };
        let mut records = self.0.records.lock().unwrap_or_else(|p| p.into_inner());
        if records.len() == CAPACITY {
            records.pop_front();
        }
        records.push_back(record);
    }
}

struct BufferLayer(LogBuffer);

#[derive(Default)]
struct MessageVisitor(String);

impl Visit for MessageVisitor {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
}

impl<S: Subscriber> Layer<S> for BufferLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        if *meta.level() > Level::INFO {
            return;
        }
        let mut visitor = MessageVisitor::default();
        event.record(&mut visitor);
        self.0.push(*meta.level(), meta.target(), visitor.0);
    }
}

const DEFAULT_FILTER: &str = "info,hyper=warn,tower_http=warn";

/// Installs the global subscriber. `RUST_LOG` overrides the default filter: a level, and
/// `target=level` pairs, comma-separated (`warn`, `info,fanhub=debug`). `Targets` reads that
/// syntax without EnvFilter's regex engine, about 0.5 MB of binary.
pub fn init(buffer: LogBuffer) {
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|directives| directives.parse::<Targets>().ok())
        .unwrap_or_else(|| DEFAULT_FILTER.parse().expect("the default log filter parses"));
    use std::io::IsTerminal;
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::stderr().is_terminal());
    let _ = tracing_subscriber::registry().with(filter).with(stderr).with(BufferLayer(buffer)).try_init();
}
