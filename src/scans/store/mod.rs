//! The scan tables (migration 0008), one file per topic: scan jobs and the members each scan
//! counted (`jobs.rs`), group membership, the leaderboards and search over stored players
//! (`leaderboards.rs`), and abuse reports (`reports.rs`).

mod jobs;
mod leaderboards;
mod reports;
mod schedule;

pub use crate::roblox::store::{Sort, player_count, ranking_ids, ranking_version};
pub use jobs::*;
pub use leaderboards::*;
pub use reports::*;
pub use schedule::*;

#[cfg(test)]
mod tests;
