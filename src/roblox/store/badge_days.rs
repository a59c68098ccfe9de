//! Each monitored badge's figures per UTC day, kept `[retention] badge_days` days (400 unless the
//! site file says otherwise): every poll writes its day's row (the day's last poll wins); the
//! monitor's chart and weekly average, the 30, 90 and 365-day charts and the history downloads
//! read them. They are all the badge history the site keeps: one row per badge per day.

use rusqlite::{Connection, Transaction, params};

use crate::error::ApiError;
use crate::roblox::monitor::HistoryPoint;

/// The most days a history answer covers (a year and a month to compare it with); the days kept
/// are `[retention] badge_days`, at least 366.
pub const BADGE_DAYS_KEPT: i64 = 400;

/// One day of a badge as the monitor holds it: the day's figures and when their poll was.
#[derive(Clone, Debug, PartialEq)]
pub struct PolledDay {
    pub taken_at: i64,
    pub point: HistoryPoint,
}

/// The UTC day of an instant (ms since the epoch), `YYYY-MM-DD`.
pub fn utc_day(ms: i64) -> String {
    crate::db::rfc3339(ms).chars().take(10).collect()
}

/// Records one poll of a badge as its day's figures: `total` awarded so far, `awarded` in the 24
/// hours before (Roblox's figure). A later poll of the same day replaces an earlier one.
pub fn record_day(tx: &Transaction, badge_id: u64, taken_at: i64, total: i64, awarded: i64) -> Result<(), ApiError> {
    tx.prepare_cached(
        "INSERT INTO badge_days (badge_id, day, awarded, total, taken_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (badge_id, day) DO UPDATE SET awarded = excluded.awarded, total = excluded.total,
            taken_at = excluded.taken_at
         WHERE excluded.taken_at >= badge_days.taken_at",
    )?
    .execute(params![badge_id as i64, utc_day(taken_at), awarded, total, taken_at])?;
    Ok(())
}

/// The days of `badge_id` from `since_day` on, oldest first.
pub fn badge_days(conn: &Connection, badge_id: u64, since_day: &str) -> Result<Vec<HistoryPoint>, ApiError> {
    let mut stmt = conn
        .prepare_cached("SELECT day, total, awarded FROM badge_days WHERE badge_id = ?1 AND day >= ?2 ORDER BY day")?;
    let rows = stmt.query_map(params![badge_id as i64, since_day], |r| {
        Ok(HistoryPoint { date: r.get(0)?, awarded_count: r.get(1)?, past_day: r.get(2)? })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The days of `badge_id` from `since_day` on with their polls' times, oldest first.
pub fn polled_days(conn: &Connection, badge_id: u64, since_day: &str) -> Result<Vec<PolledDay>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT day, total, awarded, taken_at FROM badge_days WHERE badge_id = ?1 AND day >= ?2 ORDER BY day",
    )?;
    let rows = stmt.query_map(params![badge_id as i64, since_day], |r| {
        Ok(PolledDay {
            taken_at: r.get(3)?,
            point: HistoryPoint { date: r.get(0)?, awarded_count: r.get(1)?, past_day: r.get(2)? },
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The first day with figures for `badge_id` (what "since" a chart can say), if any.
pub fn first_badge_day(conn: &Connection, badge_id: u64) -> Result<Option<String>, ApiError> {
    Ok(conn
        .prepare_cached("SELECT MIN(day) FROM badge_days WHERE badge_id = ?1")?
        .query_row([badge_id as i64], |r| r.get(0))?)
}

/// Drops at most `batch` of the days before `before_day`, oldest first, on `badge_days_day`
/// both ways: `(day, badge_id)` in that order is the index's key, so each row is found by it
/// (as `(badge_id, day)` SQLite would walk each badge's every day: 70 ms a batch, not 0.5).
pub fn prune_badge_days(tx: &Transaction, before_day: &str, batch: usize) -> Result<usize, ApiError> {
    Ok(tx
        .prepare_cached(
            "DELETE FROM badge_days WHERE (day, badge_id) IN
                (SELECT day, badge_id FROM badge_days WHERE day < ?1 ORDER BY day LIMIT ?2)",
        )?
        .execute(params![before_day, batch as i64])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY_MS: i64 = 86_400_000;

    #[test]
    fn a_day_keeps_its_last_poll_and_days_read_back_in_order() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        let day2 = 20_000 * DAY_MS;
        record_day(&tx, 7, day2 + 1000, 500, 40).unwrap();
        record_day(&tx, 7, day2 + 9000, 520, 45).unwrap();
        record_day(&tx, 7, day2 + 5000, 510, 42).unwrap(); // a late write of an earlier poll loses
        record_day(&tx, 7, day2 - DAY_MS + 10, 300, 30).unwrap();
        record_day(&tx, 8, day2, 1, 1).unwrap();
        let days = badge_days(&tx, 7, "1970-01-01").unwrap();
        assert_eq!(days.len(), 2);
        assert_eq!(
            (days[0].date.as_str(), days[0].awarded_count, days[0].past_day),
            (utc_day(day2 - DAY_MS).as_str(), 300, 30)
        );
        assert_eq!((days[1].date.as_str(), days[1].awarded_count, days[1].past_day), (utc_day(day2).as_str(), 520, 45));
        assert_eq!(badge_days(&tx, 7, &utc_day(day2)).unwrap().len(), 1, "from a day on");
        assert_eq!(first_badge_day(&tx, 7).unwrap(), Some(utc_day(day2 - DAY_MS)));
        assert_eq!(first_badge_day(&tx, 9).unwrap(), None);
        assert_eq!(prune_badge_days(&tx, &utc_day(day2), 10).unwrap(), 1);
        assert_eq!(first_badge_day(&tx, 7).unwrap(), Some(utc_day(day2)));
        assert_eq!(utc_day(day2), "2024-10-04");
    }

    #[test]
    fn old_days_go_in_batches_oldest_first_on_the_day_index() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        for badge in 1..=3 {
            for d in 0..4 {
                record_day(&tx, badge, d * DAY_MS + 5, d, 1).unwrap();
            }
        }
        let before = utc_day(2 * DAY_MS);
        assert_eq!(prune_badge_days(&tx, &before, 4).unwrap(), 4, "at most a batch");
        assert_eq!(prune_badge_days(&tx, &before, 4).unwrap(), 2);
        assert_eq!(prune_badge_days(&tx, &before, 4).unwrap(), 0);
        for badge in 1..=3 {
            assert_eq!(first_badge_day(&tx, badge).unwrap(), Some(before.clone()), "days 2 and 3 of {badge} kept");
            assert_eq!(badge_days(&tx, badge, "1970-01-01").unwrap().len(), 2);
        }
        let plan: Vec<String> = tx
            .prepare(
                "EXPLAIN QUERY PLAN DELETE FROM badge_days WHERE (day, badge_id) IN
                    (SELECT day, badge_id FROM badge_days WHERE day < '1970-01-03' ORDER BY day LIMIT 4)",
            )
            .unwrap()
            .query_map([], |r| r.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // Each row by a whole key (the day index's or the primary key), never one badge's every day.
        assert!(plan[0].contains("day=?") && plan[0].contains("badge_id=?"), "each row by key: {plan:?}");
        assert!(plan.iter().any(|p| p.contains("badge_days_day (day<?)")), "the oldest days by the index: {plan:?}");
    }
}
