//! fanhub: a self-hosted fan-community site in one binary.
//!
//! `cli` parses the command line and starts things; `app` assembles the router from the
//! features (`site`, `commands`, `guides`, `stats`, `banner`, ...); `shell` writes each route's app shell; `http` holds the plumbing
//! every feature shares; `db` the SQLite store and its migrations.

pub mod accounts;
pub mod admin;
pub mod ads;
pub mod app;
pub mod backup;
pub mod banner;
pub mod cli;
pub mod commands;
pub mod config;
pub mod content;
pub mod db;
pub mod discord;
pub mod disk;
pub mod doctor;
pub mod error;
pub mod events;
pub mod follows;
pub mod guides;
pub mod health;
pub mod heavy;
pub mod http;
pub mod jobs;
pub mod keys;
pub mod llm;
pub mod logging;
pub mod metrics;
pub mod openapi;
pub mod outbound;
pub mod ratelimit;
pub mod roblox;
pub mod scans;
pub mod search;
pub mod server;
pub mod shell;
pub mod site;
pub mod state;
pub mod stats;
pub mod time;
pub mod tokens;
pub mod v1;
