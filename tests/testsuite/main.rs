//! The integration tests: one crate (cargo's own tests/testsuite layout), one module per
//! feature, all against the real `fanhub` binary started on 127.0.0.1:0 with a temporary data
//! dir (`common::Server`). One crate links once; each file used to be its own binary.

mod common;

mod accounts;
mod admin;
mod admin_lists;
mod advertising;
mod architecture;
mod backups;
mod caching;
mod cli;
mod developer_api;
mod discord;
mod doctor;
mod fake_open_cloud;
mod follows;
mod full_disk;
mod head;
mod hostile_input;
mod http_contract;
mod link_cards;
mod litestream;
mod llm;
mod metrics;
mod public_api;
mod query_plans;
mod retention;
mod roblox;
mod roblox_open_cloud;
mod scans;
mod second_factor;
mod shared_cache;
mod upstream_failures;
