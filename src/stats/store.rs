//! The SQL of visit counting and the analytics figures: page views and unique visitors per UTC
//! day, month and route, and the monthly visitor salt.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use utoipa::ToSchema;

use super::visits::Pending;
use crate::error::ApiError;

/// The visitor salt of `month` (YYYY-MM), if one was saved.
pub fn salt(conn: &Connection, month: &str) -> Result<Option<Vec<u8>>, ApiError> {
    Ok(conn.query_row("SELECT salt FROM visitor_salts WHERE month = ?1", [month], |r| r.get(0)).optional()?)
}

pub fn save_salt(conn: &Connection, month: &str, salt: &[u8; 32]) -> Result<(), ApiError> {
    // An upsert, not INSERT OR REPLACE: the replaced row would fire no delete trigger (db::table_counts).
    conn.execute(
        "INSERT INTO visitor_salts (month, salt) VALUES (?1, ?2) ON CONFLICT (month) DO UPDATE SET salt = excluded.salt",
        params![month, salt.to_vec()],
    )?;
    Ok(())
}

/// Deletes the salts of every month but `month`.
pub fn delete_salts_but(conn: &Connection, month: &str) -> Result<(), ApiError> {
    conn.execute("DELETE FROM visitor_salts WHERE month <> ?1", [month])?;
    Ok(())
}

/// Adds the counted views and visitors to the tables.
pub fn persist_visits(conn: &Connection, pending: &Pending) -> Result<(), ApiError> {
    let mut views = conn.prepare_cached(
        "INSERT INTO page_views (day, views) VALUES (?1, ?2) ON CONFLICT(day) DO UPDATE SET views = views + excluded.views",
    )?;
    for (day, n) in &pending.views {
        views.execute(params![day, n])?;
    }
    let mut routes = conn.prepare_cached(
        "INSERT INTO route_views (day, route, views) VALUES (?1, ?2, ?3)
         ON CONFLICT(day, route) DO UPDATE SET views = views + excluded.views",
    )?;
    for ((day, route), n) in &pending.route_views {
        routes.execute(params![day, route, n])?;
    }
    // In order of day, so a visitor's latest visit is the last one counted.
    let mut visits: Vec<&(String, [u8; 16])> = pending.visitors.iter().collect();
    visits.sort_unstable();
    for (day, hash) in visits {
        count_visitor(conn, day, hash)?;
    }
    Ok(())
}

/// Counts one visitor's visit on `day` (YYYY-MM-DD) into the day's figures. The visitor's month is
/// `day`'s (its hash was made with that month's salt). A first visit this month adds a visitor
/// and a last visit to the day; a visit on a later day than the visitor's last one moves that last
/// visit here; a second visit the same day changes nothing.
fn count_visitor(conn: &Connection, day: &str, hash: &[u8; 16]) -> Result<(), ApiError> {
    let month = &day[..7];
    let last_day: Option<String> = conn
        .prepare_cached("SELECT last_day FROM month_visitors WHERE month = ?1 AND hash = ?2")?
        .query_row(params![month, hash], |r| r.get(0))
        .optional()?;
    let mut add = conn.prepare_cached(
        "INSERT INTO visitor_days (day, visitors, last_visits) VALUES (?1, ?2, ?3)
         ON CONFLICT(day) DO UPDATE SET visitors = visitors + excluded.visitors, last_visits = last_visits + excluded.last_visits",
    )?;
    match last_day {
        None => {
            conn.prepare_cached("INSERT INTO month_visitors (month, hash, last_day) VALUES (?1, ?2, ?3)")?
                .execute(params![month, hash, day])?;
        }
        Some(last) if last.as_str() < day => {
            conn.prepare_cached("UPDATE month_visitors SET last_day = ?3 WHERE month = ?1 AND hash = ?2")?
                .execute(params![month, hash, day])?;
            add.execute(params![last, 0, -1])?;
        }
        Some(_) => return Ok(()),
    }
    add.execute(params![day, 1, 1])?;
    Ok(())
}

/// Deletes up to `limit` visitor hashes of months before `month` (YYYY-MM): once a month is over
/// and its visits are written, its figures are in visitor_days and nothing reads its hashes.
/// Returns how many went.
pub fn prune_month_visitors(conn: &Connection, month: &str, limit: usize) -> Result<usize, ApiError> {
    Ok(conn
        .prepare_cached(
            "DELETE FROM month_visitors WHERE (month, hash) IN
                (SELECT month, hash FROM month_visitors WHERE month < ?1 LIMIT ?2)",
        )?
        .execute(params![month, limit as i64])?)
}

/// Distinct visitors of `month` (YYYY-MM): each counts once, on the day of their last visit.
pub fn monthly_visitors(conn: &Connection, month: &str) -> Result<i64, ApiError> {
    Ok(conn
        .prepare_cached(
            "SELECT COALESCE(SUM(last_visits), 0) FROM visitor_days WHERE day BETWEEN ?1 || '-01' AND ?1 || '-31'",
        )?
        .query_row([month], |r| r.get(0))?)
}

/// Every page view counted.
pub fn total_page_views(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COALESCE(SUM(views), 0) FROM page_views", [], |r| r.get(0))?)
}

/// The page views of one day (YYYY-MM-DD).
pub fn page_views_on(conn: &Connection, day: &str) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COALESCE(SUM(views), 0) FROM page_views WHERE day = ?1", [day], |r| r.get(0))?)
}

#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DayFigures {
    /// YYYY-MM-DD (UTC).
    #[schema(format = Date)]
    pub date: String,
    pub page_views: i64,
    pub visitors: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RouteFigures {
    pub route: String,
    pub page_views: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub page_views: i64,
    /// Distinct visitors in the period (one who comes back in a new month counts again: the
    /// hashes of each month use their own salt).
    pub visitors: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Analytics {
    /// How many days, ending today (UTC).
    pub days: u32,
    pub totals: Totals,
    /// One entry per day, oldest first, zeros included.
    pub daily: Vec<DayFigures>,
    /// Views per route in the period, most viewed first.
    pub routes: Vec<RouteFigures>,
}

/// Distinct visitors from `from` (YYYY-MM-DD) to today. Exact: a visitor-month counts once, on
/// its last day, and a visitor-month with a visit since `from` has its last day since `from`
/// (nothing is counted after today). The window must end today, which is why it has no end.
pub fn distinct_visitors_since(conn: &Connection, from: &str) -> Result<i64, ApiError> {
    Ok(conn
        .prepare_cached("SELECT COALESCE(SUM(last_visits), 0) FROM visitor_days WHERE day >= ?1")?
        .query_row([from], |r| r.get(0))?)
}

/// The figures of the `days` days ending on `today` (YYYY-MM-DD dates compare as text).
pub fn analytics(conn: &Connection, days: u32, today: jiff::civil::Date) -> Result<Analytics, ApiError> {
    let first = today.checked_sub(jiff::Span::new().days(i64::from(days.max(1)) - 1)).map_err(ApiError::internal)?;
    let (from, to) = (first.to_string(), today.to_string());
    let mut views: HashMap<String, i64> = HashMap::new();
    let mut stmt = conn.prepare_cached("SELECT day, views FROM page_views WHERE day BETWEEN ?1 AND ?2")?;
    for row in stmt.query_map(params![from, to], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (day, n) = row?;
        views.insert(day, n);
    }
    let mut visitors: HashMap<String, i64> = HashMap::new();
    let mut stmt = conn.prepare_cached("SELECT day, visitors FROM visitor_days WHERE day BETWEEN ?1 AND ?2")?;
    for row in stmt.query_map(params![from, to], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (day, n) = row?;
        visitors.insert(day, n);
    }
    let daily: Vec<DayFigures> = first
        .series(jiff::Span::new().days(1))
        .take(days.max(1) as usize)
        .map(|d| {
            let date = d.to_string();
            DayFigures {
                page_views: views.get(&date).copied().unwrap_or(0),
                visitors: visitors.get(&date).copied().unwrap_or(0),
                date,
            }
        })
        .collect();
    let distinct = distinct_visitors_since(conn, &from)?;
    let mut stmt = conn.prepare_cached(
        "SELECT route, SUM(views) AS n FROM route_views WHERE day BETWEEN ?1 AND ?2 GROUP BY route ORDER BY n DESC, route",
    )?;
    let routes = stmt
        .query_map(params![from, to], |r| Ok(RouteFigures { route: r.get(0)?, page_views: r.get(1)? }))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Analytics {
        days: days.max(1),
        totals: Totals { page_views: daily.iter().map(|d| d.page_views).sum(), visitors: distinct },
        daily,
        routes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes one flush holding these (day, visitor) visits.
    fn flush(conn: &Connection, visits: &[(&str, u8)]) {
        let mut pending = Pending::default();
        for (day, visitor) in visits {
            pending.visitors.insert((day.to_string(), [*visitor; 16]));
        }
        persist_visits(conn, &pending).unwrap();
    }

    /// (day, visitors, last_visits) of every day, oldest first.
    fn days(conn: &Connection) -> Vec<(String, i64, i64)> {
        conn.prepare("SELECT day, visitors, last_visits FROM visitor_days ORDER BY day")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn since(conn: &Connection, from: &str) -> i64 {
        distinct_visitors_since(conn, from).unwrap()
    }

    #[test]
    fn days_without_visits_are_zero_and_the_period_is_respected() {
        let (_dir, conn) = crate::db::open_for_tests();
        conn.execute_batch(
            "INSERT INTO page_views VALUES ('2026-11-20', 5), ('2026-11-22', 7), ('2026-10-01', 100);
             INSERT INTO route_views VALUES ('2026-11-20', '/', 3), ('2026-11-22', '/', 1), ('2026-11-22', '/commands', 8),
                                            ('2026-10-01', '/guides', 100);",
        )
        .unwrap();
        flush(&conn, &[("2026-10-01", 9), ("2026-11-20", 1), ("2026-11-22", 1), ("2026-11-22", 2)]);
        let a = analytics(&conn, 3, "2026-11-22".parse().unwrap()).unwrap();
        assert_eq!(
            a.daily.iter().map(|d| (d.date.as_str(), d.page_views, d.visitors)).collect::<Vec<_>>(),
            [("2026-11-20", 5, 1), ("2026-11-21", 0, 0), ("2026-11-22", 7, 2)]
        );
        assert_eq!(a.totals, Totals { page_views: 12, visitors: 2 });
        assert_eq!(
            a.routes,
            vec![
                RouteFigures { route: "/commands".into(), page_views: 8 },
                RouteFigures { route: "/".into(), page_views: 4 }
            ]
        );
    }

    #[test]
    fn a_returning_visitor_counts_once_a_day_and_once_in_any_window_ending_today() {
        let (_dir, conn) = crate::db::open_for_tests();
        // Visitor 1 on the 3rd, 5th and (twice) the 9th; 2 on the 5th; 3 on the 3rd and the 5th.
        flush(&conn, &[("2026-11-03", 1), ("2026-11-03", 3), ("2026-11-05", 2)]);
        flush(&conn, &[("2026-11-05", 1), ("2026-11-05", 3)]);
        flush(&conn, &[("2026-11-09", 1)]);
        flush(&conn, &[("2026-11-09", 1), ("2026-11-05", 2)]);
        assert_eq!(
            days(&conn),
            [("2026-11-03".into(), 2, 0), ("2026-11-05".into(), 3, 2), ("2026-11-09".into(), 1, 1)]
        );
        for (from, distinct) in
            [("2026-11-01", 3), ("2026-11-04", 3), ("2026-11-05", 3), ("2026-11-06", 1), ("2026-11-10", 0)]
        {
            assert_eq!(since(&conn, from), distinct, "from {from} to the 9th");
        }
        assert_eq!(monthly_visitors(&conn, "2026-11").unwrap(), 3);
        assert_eq!(monthly_visitors(&conn, "2026-10").unwrap(), 0);
    }

    #[test]
    fn one_flush_is_counted_in_order_of_day_and_each_month_counts_its_own_visitors() {
        let (_dir, conn) = crate::db::open_for_tests();
        // One flush across midnight at the month's end: visitor 1's later day comes first in the set.
        flush(&conn, &[("2026-11-02", 1), ("2026-10-31", 1), ("2026-10-30", 2), ("2026-10-31", 4)]);
        // In November the same people have new hashes (the month's own salt): 7 is visitor 2.
        flush(&conn, &[("2026-11-01", 7), ("2026-11-02", 7)]);
        assert_eq!(
            days(&conn),
            [
                ("2026-10-30".into(), 1, 1),
                ("2026-10-31".into(), 2, 2),
                ("2026-11-01".into(), 1, 0),
                ("2026-11-02".into(), 2, 2)
            ]
        );
        assert_eq!(monthly_visitors(&conn, "2026-10").unwrap(), 3, "1 is October's on the 31st");
        assert_eq!(monthly_visitors(&conn, "2026-11").unwrap(), 2);
        assert_eq!(since(&conn, "2026-10-30"), 5, "one who comes back in a new month counts again");
        assert_eq!(since(&conn, "2026-11-01"), 2);
    }

    #[test]
    fn a_past_months_hashes_go_in_batches_and_its_figures_stay() {
        let (_dir, conn) = crate::db::open_for_tests();
        flush(&conn, &[("2026-10-05", 1), ("2026-10-07", 2), ("2026-10-20", 3), ("2026-11-01", 4)]);
        let hashes = |month: &str| -> i64 {
            conn.query_row("SELECT COUNT(*) FROM month_visitors WHERE month = ?1", [month], |r| r.get(0)).unwrap()
        };
        assert_eq!((hashes("2026-10"), hashes("2026-11")), (3, 1));
        assert_eq!(prune_month_visitors(&conn, "2026-11", 2).unwrap(), 2);
        assert_eq!(prune_month_visitors(&conn, "2026-11", 2).unwrap(), 1);
        assert_eq!(prune_month_visitors(&conn, "2026-11", 2).unwrap(), 0);
        assert_eq!((hashes("2026-10"), hashes("2026-11")), (0, 1), "the current month's stay");
        assert_eq!(monthly_visitors(&conn, "2026-10").unwrap(), 3);
        assert_eq!(since(&conn, "2026-10-06"), 3);
        let plan: String = conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT month, hash FROM month_visitors WHERE month < '2026-11' LIMIT 500",
                [],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains("USING PRIMARY KEY (month<?)"), "{plan}");
    }

    #[test]
    fn the_analytics_window_ends_today_and_reaches_90_days_back() {
        let (_dir, conn) = crate::db::open_for_tests();
        // 91 days back (outside), 89 days back (the first day in), and today.
        flush(&conn, &[("2026-08-29", 1), ("2026-08-31", 2), ("2026-08-31", 3), ("2026-11-28", 3)]);
        let a = analytics(&conn, 90, "2026-11-28".parse().unwrap()).unwrap();
        assert_eq!(a.daily.first().map(|d| (d.date.as_str(), d.visitors)), Some(("2026-08-31", 2)));
        assert_eq!(a.daily.last().map(|d| (d.date.as_str(), d.visitors)), Some(("2026-11-28", 1)));
        assert_eq!(a.totals.visitors, 3, "2 and 3 in August (3 counted on its last day there), 3 again in November");
    }
}
