//! With `FANHUB_SQL_LOG=/path` set, every distinct SQL statement any connection runs is appended to
//! that file once, as written in the source (`?N` parameters unexpanded). The query-plan test
//! (tests/testsuite/query_plans.rs) runs the server with it and checks each statement's plan, so a
//! new query is covered by itself. Unset (as in production), nothing is installed.

use std::collections::HashSet;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

use rusqlite::Connection;
use rusqlite::trace::{TraceEvent, TraceEventCodes};

type Log = Mutex<(std::fs::File, HashSet<String>)>;

fn log() -> Option<&'static Log> {
    static LOG: OnceLock<Option<Log>> = OnceLock::new();
    LOG.get_or_init(|| {
        let path = std::env::var_os("FANHUB_SQL_LOG").filter(|p| !p.is_empty())?;
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path).ok()?;
        Some(Mutex::new((file, HashSet::new())))
    })
    .as_ref()
}

fn record(event: TraceEvent<'_>) {
    // A trigger's subprogram reports its name as a `--` comment: its statements are the trigger's.
    let TraceEvent::Stmt(stmt, text) = event else { return };
    if text.starts_with("--") {
        return;
    }
    let Some(log) = log() else { return };
    let sql = stmt.sql().trim().to_string();
    let mut guard = log.lock().unwrap_or_else(|p| p.into_inner());
    let (file, seen) = &mut *guard;
    if seen.insert(sql.clone()) {
        // One statement per record: a NUL never appears in SQL text.
        let _ = file.write_all(format!("{sql}\0\n").as_bytes());
    }
}

/// Installs the statement log on `conn` when `FANHUB_SQL_LOG` names a file.
pub fn install(conn: &Connection) {
    if log().is_some() {
        conn.trace_v2(TraceEventCodes::SQLITE_TRACE_STMT, Some(record));
    }
}
