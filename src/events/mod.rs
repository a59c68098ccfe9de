//! Public happenings a community bot can follow (`GET /api/v1/events`): new members, banner
//! changes, site upgrades. Features record them in the same transaction as the change itself, so
//! an event exists exactly when its change does. Events name no person and carry no IP.

pub mod store;

pub use store::{Event, record};

/// The event types, documented on /api-docs and in the OpenAPI document.
pub const TYPES: [&str; 3] = [MEMBER_JOINED, BANNER_CHANGED, SITE_UPGRADED];
/// A fan created an account. `{members}`: the number of accounts now.
pub const MEMBER_JOINED: &str = "member.joined";
/// The bottom banner changed. `{banner: "default" | "custom", backgroundColor, textColor, borderColor}`.
pub const BANNER_CHANGED: &str = "banner.changed";
/// The site runs a new version. `{from, to}`.
pub const SITE_UPGRADED: &str = "site.upgraded";

/// How often old events are removed (the first time at start).
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// The feed's background work: events older than `[retention] events_days` go, in small batches.
pub fn background(
    background: &mut crate::jobs::Background,
    db: crate::db::Db,
    retention: crate::db::retention::RetentionSettings,
) {
    background.job("event-sweep", |job| {
        crate::jobs::every(SWEEP_EVERY, None, move || {
            let (db, job) = (db.clone(), job.clone());
            let before = crate::db::now_ms() - crate::db::retention::days_ms(retention.events_days);
            async move {
                let pruned =
                    db.prune_in_batches(move |tx| store::prune(tx, before, crate::db::retention::PRUNE_BATCH)).await;
                match job.report(pruned) {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("removed {n} old events of the feed"),
                    Err(e) if e.is_out_of_space() => {}
                    Err(e) => tracing::warn!("old events not removed: {e}"),
                }
            }
        })
    });
}
