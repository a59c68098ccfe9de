//! The shape of `src/`, checked from the source text so that a new module is covered by itself:
//! the shared layers import no feature, no feature reaches the assembly (`AppState`, the router,
//! the server), the features import each other without a circle, and SQL lives only in a
//! feature's store (its `store.rs`, or the files of its `store/` folder) or in `db/`, with one
//! store changing each table.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers below the features: they may import each other (without a circle) but no feature.
const SHARED: &[&str] = &[
    "error",
    "disk",
    "db",
    "config",
    "http",
    "time",
    "tokens",
    "content",
    "search",
    "jobs",
    "heavy",
    "ratelimit",
    "logging",
    "outbound",
];
/// Where the features are put together; only these may name `AppState` and every feature.
const ASSEMBLY: &[&str] = &["app", "state", "server", "cli", "openapi", "lib", "main"];

struct Source {
    /// The path under `src/`, like `admin/users.rs`.
    path: String,
    /// The text without its `#[cfg(test)]` module: tests may reach anywhere.
    text: String,
}

/// A `tests.rs` is a module's `#[cfg(test)] mod tests;` moved to a file of its own.
fn is_test_module(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "tests.rs")
}

fn sources() -> Vec<Source> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") && !is_test_module(&path) {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let text = match text.find("#[cfg(test)]\nmod tests") {
                Some(at) => text[..at].to_string(),
                None => text,
            };
            Source { path: file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/"), text }
        })
        .collect()
}

fn module_of(path: &str) -> String {
    let first = path.split('/').next().unwrap();
    first.strip_suffix(".rs").unwrap_or(first).to_string()
}

fn without_comments(text: &str) -> String {
    text.lines().map(|l| if l.trim_start().starts_with("//") { "" } else { l }).collect::<Vec<_>>().join("\n")
}

/// Every top-level module each module names through `crate::`, with the first line naming it.
fn imports(sources: &[Source], modules: &BTreeSet<String>) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for source in sources {
        let from = module_of(&source.path);
        let text = without_comments(&source.text);
        let mut searched = 0;
        while let Some(found) = text[searched..].find("crate::") {
            let at = searched + found + "crate::".len();
            searched = at;
            let rest = &text[at..];
            let names = if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a, b::c, d::{e, f}}`, which may span lines.
                let mut depth = 1;
                let end = group
                    .char_indices()
                    .find(|&(_, ch)| {
                        match ch {
                            '{' => depth += 1,
                            '}' => depth -= 1,
                            _ => {}
                        }
                        depth == 0
                    })
                    .map_or(group.len(), |(i, _)| i);
                top_level_names(&group[..end])
            } else {
                vec![rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()]
            };
            let line = text[..at].matches('\n').count() + 1;
            for name in names {
                if name != from && modules.contains(&name) {
                    edges
                        .entry(from.clone())
                        .or_default()
                        .entry(name)
                        .or_insert_with(|| format!("src/{}:{line}", source.path));
                }
            }
        }
    }
    edges
}

/// The first segment of each path in a `use` group body: `a, b::c, d::{e, f}` gives a, b, d.
fn top_level_names(group: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut depth = 0;
    let mut at_start = true;
    let mut current = String::new();
    for ch in group.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                if !current.is_empty() {
                    names.push(std::mem::take(&mut current));
                }
                at_start = true;
                continue;
            }
            _ => {}
        }
        if depth == 0 && at_start {
            if ch.is_alphanumeric() || ch == '_' {
                current.push(ch);
            } else if !current.is_empty() {
                names.push(std::mem::take(&mut current));
                at_start = false;
            }
        }
    }
    if !current.is_empty() {
        names.push(current);
    }
    names
}

fn all_modules(sources: &[Source]) -> BTreeSet<String> {
    sources.iter().map(|s| module_of(&s.path)).collect()
}

#[test]
fn the_shared_layers_import_no_feature() {
    let sources = sources();
    let modules = all_modules(&sources);
    let edges = imports(&sources, &modules);
    let mut wrong = Vec::new();
    for shared in SHARED {
        for (to, at) in edges.get(*shared).into_iter().flatten() {
            if !SHARED.contains(&to.as_str()) {
                wrong.push(format!("{shared} -> {to} ({at})"));
            }
        }
    }
    assert!(wrong.is_empty(), "a shared layer imports a feature or the assembly:\n{}", wrong.join("\n"));
}

#[test]
fn no_feature_reaches_the_assembly() {
    let sources = sources();
    let modules = all_modules(&sources);
    let edges = imports(&sources, &modules);
    let mut wrong = Vec::new();
    for (from, tos) in &edges {
        if ASSEMBLY.contains(&from.as_str()) {
            continue;
        }
        for (to, at) in tos {
            if ASSEMBLY.contains(&to.as_str()) {
                wrong.push(format!("{from} -> {to} ({at})"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "features are handed the services they use; they never import the assembly:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_features_and_layers_import_each_other_without_a_circle() {
    let sources = sources();
    let modules: BTreeSet<String> =
        all_modules(&sources).into_iter().filter(|m| !ASSEMBLY.contains(&m.as_str())).collect();
    let edges = imports(&sources, &modules);
    let circles = strongly_connected(&modules, &edges);
    let mut report = Vec::new();
    for circle in &circles {
        report.push(format!("circle: {}", circle.iter().cloned().collect::<Vec<_>>().join(", ")));
        for from in circle {
            for (to, at) in edges.get(from).into_iter().flatten() {
                if circle.contains(to) {
                    report.push(format!("  {from} -> {to} ({at})"));
                }
            }
        }
    }
    assert!(circles.is_empty(), "modules that import each other in a circle:\n{}", report.join("\n"));
}

/// Tarjan's algorithm; only the components of more than one module are returned.
fn strongly_connected(
    modules: &BTreeSet<String>,
    edges: &BTreeMap<String, BTreeMap<String, String>>,
) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on_stack: BTreeSet<String>,
        next: usize,
        found: Vec<BTreeSet<String>>,
    }
    impl Walk<'_> {
        fn visit(&mut self, v: &str) {
            self.index.insert(v.to_string(), self.next);
            self.low.insert(v.to_string(), self.next);
            self.next += 1;
            self.stack.push(v.to_string());
            self.on_stack.insert(v.to_string());
            let targets: Vec<String> = self.edges.get(v).map(|t| t.keys().cloned().collect()).unwrap_or_default();
            for w in targets {
                if !self.index.contains_key(&w) {
                    self.visit(&w);
                    let low = self.low[v].min(self.low[&w]);
                    self.low.insert(v.to_string(), low);
                } else if self.on_stack.contains(&w) {
                    let low = self.low[v].min(self.index[&w]);
                    self.low.insert(v.to_string(), low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack.remove(&w);
                    component.insert(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for m in modules {
        if !walk.index.contains_key(m) {
            walk.visit(m);
        }
    }
    walk.found
}

/// A string literal that starts like an SQL statement.
fn sql_statements(text: &str) -> Vec<usize> {
    const STARTS: &[&str] =
        &["SELECT ", "INSERT ", "UPDATE ", "DELETE ", "REPLACE ", "WITH ", "CREATE ", "DROP ", "ALTER ", "PRAGMA "];
    let mut found = Vec::new();
    for (line_no, line) in without_comments(text).lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find('"') {
            rest = &rest[at + 1..];
            let body = rest.trim_start();
            if STARTS.iter().any(|s| body.starts_with(s)) {
                found.push(line_no + 1);
                break;
            }
        }
    }
    found
}

/// The store a file belongs to, if any: `roblox/store.rs` is the Roblox feature's store, every
/// file under `scans/store/` the scans feature's, and `db/` holds SQLite's own SQL.
fn store_of(path: &str) -> Option<String> {
    if path.starts_with("db/") {
        return Some("src/db/".into());
    }
    if path.ends_with("/store.rs") {
        return Some(format!("src/{path}"));
    }
    let at = path.find("/store/")?;
    Some(format!("src/{}", &path[..at + "/store/".len()]))
}

/// `path:line` of each SQL statement outside a store or `db/`.
fn sql_outside_stores(sources: &[Source]) -> Vec<String> {
    let mut wrong = Vec::new();
    for source in sources {
        if store_of(&source.path).is_some() {
            continue;
        }
        for line in sql_statements(&source.text) {
            wrong.push(format!("src/{}:{line}", source.path));
        }
    }
    wrong
}

#[test]
fn sql_lives_in_a_store_or_in_db() {
    let wrong = sql_outside_stores(&sources());
    assert!(wrong.is_empty(), "SQL outside a feature's store (store.rs or store/) or db/:\n{}", wrong.join("\n"));
}

/// Words of a text: runs of letters, digits and underscores.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect()
}

/// The tables the numbered migrations create.
fn tables() -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/db/migrations");
    let mut tables = BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        // Only the migrations: migrations/tests.rs is the Rust module that tests them.
        if path.extension().is_none_or(|e| e != "sql") {
            continue;
        }
        let sql = std::fs::read_to_string(path).unwrap();
        let words = words(&sql);
        for (i, pair) in words.windows(2).enumerate() {
            if pair == ["CREATE", "TABLE"] {
                let name =
                    if words[i + 2..].starts_with(&["IF", "NOT", "EXISTS"]) { words[i + 5] } else { words[i + 2] };
                tables.insert(name.to_string());
            }
        }
    }
    tables
}

/// The tables a text changes: `INSERT [OR …] INTO t`, `REPLACE INTO t`, `UPDATE t`, `DELETE FROM t`.
fn written_tables(text: &str, tables: &BTreeSet<String>) -> BTreeSet<String> {
    let words = words(text);
    let mut written = BTreeSet::new();
    for (i, word) in words.iter().enumerate() {
        let target = match *word {
            "INTO" | "UPDATE" => words.get(i + 1),
            "DELETE" if words.get(i + 1) == Some(&"FROM") => words.get(i + 2),
            _ => None,
        };
        if let Some(table) = target.filter(|t| tables.contains(**t)) {
            written.insert(table.to_string());
        }
    }
    written
}

/// Who changes each table: the store (a `store/` folder counts as one), else the file.
fn table_writers(sources: &[Source], tables: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut writers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for source in sources {
        let writer = store_of(&source.path).unwrap_or_else(|| format!("src/{}", source.path));
        for table in written_tables(&without_comments(&source.text), tables) {
            writers.entry(table).or_default().insert(writer.clone());
        }
    }
    writers
}

/// One owner per table: the rows of a table are changed by one store, whose functions every
/// other feature calls. (Reads may join another feature's table where its store says why.)
#[test]
fn every_table_is_written_by_one_store() {
    let tables = tables();
    let writers = table_writers(&sources(), &tables);
    let shared: Vec<String> = writers
        .iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(table, files)| format!("{table}: {}", files.iter().cloned().collect::<Vec<_>>().join(", ")))
        .collect();
    assert!(shared.is_empty(), "tables changed from more than one store or file:\n{}", shared.join("\n"));
    assert_eq!(
        writers.get("users").map(|files| files.iter().cloned().collect::<Vec<_>>()),
        Some(vec!["src/accounts/store.rs".to_string()]),
        "accounts owns users"
    );
}

/// The OpenAPI schema name of every `ToSchema` type: its own name, or the one its
/// `#[schema(as = ...)]` gives it; with the file that declares it.
fn schema_names(sources: &[Source]) -> Vec<(String, String)> {
    let mut names = Vec::new();
    for source in sources {
        let lines: Vec<&str> = source.text.lines().collect();
        for (at, line) in lines.iter().enumerate() {
            if !(line.trim_start().starts_with("#[derive(") && line.contains("ToSchema")) {
                continue;
            }
            let mut renamed = None;
            for next in &lines[at + 1..] {
                let next = next.trim_start();
                if let Some(rest) = next.split("schema(as = ").nth(1) {
                    let path = rest.split([')', ',']).next().unwrap_or_default();
                    renamed = path.rsplit("::").next().map(|n| n.trim().to_string());
                }
                if next.starts_with("#[") || next.starts_with("//") {
                    continue;
                }
                let item = next.strip_prefix("pub").map_or(next, |rest| match rest.strip_prefix('(') {
                    Some(scoped) => scoped.split_once(')').map_or(rest, |(_, after)| after),
                    None => rest,
                });
                let item = item.trim_start();
                if let Some(rest) = item.strip_prefix("struct ").or_else(|| item.strip_prefix("enum ")) {
                    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    names.push((renamed.unwrap_or(name), source.path.clone()));
                }
                break;
            }
        }
    }
    names
}

#[test]
fn no_two_openapi_schemas_share_a_name() {
    // utoipa names a schema after its type, so two types of one name become one schema and the
    // document describes one of them wrongly (it happened: the ad reading's `Evidence` and the
    // newgen verdict's). A second type of a taken name says `#[schema(as = OtherName)]`.
    let names = schema_names(&sources());
    assert!(names.len() > 100, "the scan finds the schemas: {}", names.len());
    let mut declared: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (name, path) in &names {
        declared.entry(name).or_default().push(path);
    }
    let twice: Vec<String> = declared
        .iter()
        .filter(|(_, paths)| paths.len() > 1)
        .map(|(name, paths)| format!("{name}: {paths:?}"))
        .collect();
    assert!(twice.is_empty(), "schemas of one name:\n{}", twice.join("\n"));
}

#[test]
fn the_checks_see_what_they_check() {
    // The parsers must find what they are meant to find, or the checks above would pass on nothing.
    assert_eq!(top_level_names("a, b::c, d::{e, f}, g"), ["a", "b", "d", "g"]);
    assert_eq!(sql_statements("let x = 1;\nconn.execute(\"DELETE FROM t\", [])"), [2]);
    let known: BTreeSet<String> = ["t", "u", "v", "w"].map(String::from).into();
    assert_eq!(
        written_tables(
            "INSERT OR IGNORE INTO\n t (a) ... UPDATE u SET ... DELETE FROM v ... FROM w ... DO UPDATE SET",
            &known
        ),
        ["t", "u", "v"].map(String::from).into()
    );
    let tables = tables();
    assert!(tables.contains("users") && tables.contains("players") && tables.len() > 20, "{tables:?}");
    let sources = sources();
    let modules = all_modules(&sources);
    assert!(modules.contains("accounts") && modules.contains("http") && modules.contains("app"));
    let edges = imports(&sources, &modules);
    assert!(edges.get("app").is_some_and(|t| t.contains_key("accounts")), "app assembles accounts");
    assert!(sources.iter().any(|s| s.path == "scans/store/jobs.rs"), "a store folder is read");
    assert!(!sources.iter().any(|s| s.path.ends_with("/tests.rs")), "test modules are left out");
    let schemas = schema_names(&[
        Source {
            path: "a.rs".into(),
            text: "#[derive(Serialize, ToSchema)]\n/// Doc.\n#[schema(as = Other)]\npub(crate) struct Named {".into(),
        },
        Source { path: "b.rs".into(), text: "#[derive(utoipa::ToSchema)]\nenum Kind {".into() },
    ]);
    assert_eq!(schemas, [("Other".to_string(), "a.rs".to_string()), ("Kind".to_string(), "b.rs".to_string())]);
}

#[test]
fn a_store_may_be_a_folder_and_sql_elsewhere_is_still_caught() {
    let source = |path: &str, text: &str| Source { path: path.into(), text: text.into() };
    let insert = "conn.execute(\"INSERT INTO t (a) VALUES (1)\", [])";
    let sources = [
        source("scans/store/jobs.rs", insert),
        source("scans/store/mod.rs", "conn.execute(\"DELETE FROM t\", [])"),
        source("roblox/store.rs", "conn.query_row(\"SELECT 1\", [], |r| r.get(0))"),
        source("db/settings.rs", "conn.execute(\"PRAGMA x\", [])"),
        source("scans/routes/mod.rs", "let x = 1;\nconn.execute(\"UPDATE u SET a = 1\", [])"),
        source("scans/storehouse.rs", insert),
        source("backup/restore.rs", insert),
        source("store/x.rs", insert),
    ];
    assert_eq!(
        sql_outside_stores(&sources),
        ["src/scans/routes/mod.rs:2", "src/scans/storehouse.rs:1", "src/backup/restore.rs:1", "src/store/x.rs:1"],
        "a store folder's files are its store; nothing else is"
    );
    let known: BTreeSet<String> = ["t", "u"].map(String::from).into();
    let writers = table_writers(&sources[..2], &known);
    assert_eq!(writers["t"], ["src/scans/store/".to_string()].into(), "one store folder is one writer");
    let writers = table_writers(&sources, &known);
    assert_eq!(writers["t"].len(), 4, "{writers:?}: a second store or a file writing the table is caught");
}

/// Lines of `src/` (tests aside) that make or name a rate limiter, with their file.
fn limiter_lines(sources: &[Source]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in sources {
        for line in without_comments(&s.text).lines() {
            if line.contains("governor") || line.contains("RateLimiter") {
                out.push((s.path.clone(), line.trim().to_string()));
            }
        }
    }
    out
}

#[test]
fn every_rate_limiter_is_made_in_the_sweep() {
    // A limiter keeps an entry per address; one that nothing sweeps grows without bound under a
    // flood of new addresses. ratelimit.rs makes every limiter, each through `swept(..)`, which
    // registers it with the one sweep the server runs; no other file may make one.
    let lines = limiter_lines(&sources());
    assert!(
        lines.iter().any(|(p, l)| p == "ratelimit.rs" && l.contains("RateLimiter::keyed(")),
        "the check sees the limiters"
    );
    let elsewhere: Vec<_> = lines.iter().filter(|(p, _)| p != "ratelimit.rs").collect();
    assert!(elsewhere.is_empty(), "limiters made outside ratelimit.rs (make a PerIp instead): {elsewhere:?}");
    let unswept: Vec<_> = lines.iter().filter(|(_, l)| l.contains("RateLimiter::") && !l.contains("swept(")).collect();
    assert!(unswept.is_empty(), "limiters made without swept(..): {unswept:?}");

    let fake = |text: &str| vec![Source { path: "roblox/routes.rs".into(), text: text.into() }];
    assert_eq!(
        limiter_lines(&fake("let l = governor::RateLimiter::keyed(q);")).len(),
        1,
        "a limiter elsewhere is seen"
    );
}

/// `path:line` of each line that starts long-running work (`tokio::spawn`) or registers a job
/// (`.register(`) in the assembly's files.
fn background_in_assembly(sources: &[Source]) -> Vec<String> {
    let mut out = Vec::new();
    for s in sources.iter().filter(|s| ASSEMBLY.contains(&module_of(&s.path).as_str())) {
        for (n, line) in without_comments(&s.text).lines().enumerate() {
            if line.contains("tokio::spawn") || line.contains(".register(") || line.contains("interval(") {
                out.push(format!("{}:{}: {}", s.path, n + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn background_work_is_declared_by_the_feature_that_owns_it() {
    // Each feature declares its jobs, polls and sweeps in its own `background(..)`; the assembly
    // only lists those calls (`app::background`) and the server starts what was declared. A task
    // written in server.rs again would hide a feature's duty where its owner does not look.
    let sources = sources();
    let found = background_in_assembly(&sources);
    assert!(found.is_empty(), "background work started or registered by the assembly itself: {found:#?}");
    let app = sources.iter().find(|s| s.path == "app.rs").expect("app.rs");
    assert!(app.text.contains("pub fn background(state: &AppState) -> Background"), "the assembly lists the work");
    let server = sources.iter().find(|s| s.path == "server.rs").expect("server.rs");
    assert!(server.text.contains("app::background(&state).start()"), "the server starts what was declared");

    let fake = vec![Source { path: "server.rs".into(), text: "let t = tokio::spawn(async {});\n".into() }];
    assert_eq!(background_in_assembly(&fake).len(), 1, "a task started by the server is seen");
}
