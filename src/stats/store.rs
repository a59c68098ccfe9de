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
    let mut visitors = conn.prepare_cached("INSERT OR IGNORE INTO monthly_visitors (month, hash) VALUES (?1, ?2)")?;
    for (month, hash) in &pending.visitors {
        visitors.execute(params![month, hash.to_vec()])?;
    }
    let mut routes = conn.prepare_cached(
        "INSERT INTO route_views (day, route, views) VALUES (?1, ?2, ?3)
         ON CONFLICT(day, route) DO UPDATE SET views = views + excluded.views",
    )?;
    for ((day, route), n) in &pending.route_views {
        routes.execute(params![day, route, n])?;
    }
    let mut daily = conn.prepare_cached("INSERT OR IGNORE INTO daily_visitors (day, hash) VALUES (?1, ?2)")?;
    for (day, hash) in &pending.daily_visitors {
        daily.execute(params![day, hash.to_vec()])?;
    }
    Ok(())
}

/// Distinct visitors of `month` (YYYY-MM).
pub fn monthly_visitors(conn: &Connection, month: &str) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM monthly_visitors WHERE month = ?1", [month], |r| r.get(0))?)
}

/// Every page view counted.
pub fn total_page_views(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COALESCE(SUM(views), 0) FROM page_views", [], |r| r.get(0))?)
}

/// The page views of one day (YYYY-MM-DD).
pub fn page_views_on(conn: &Connection, day: &str) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COALESCE(SUM(views), 0) FROM page_views WHERE day = ?1", [day], |r| r.get(0))?)
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DayFigures {
    /// YYYY-MM-DD (UTC).
    #[schema(format = Date)]
    pub date: String,
    pub page_views: i64,
    pub visitors: i64,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RouteFigures {
    pub route: String,
    pub page_views: i64,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub page_views: i64,
    /// Distinct visitors in the period (one who comes back in a new month counts again: the
    /// hashes of each month use their own salt).
    pub visitors: i64,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
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
    let mut stmt =
        conn.prepare_cached("SELECT day, COUNT(*) FROM daily_visitors WHERE day BETWEEN ?1 AND ?2 GROUP BY day")?;
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
    let distinct: i64 = conn.query_row(
        "SELECT COUNT(DISTINCT hash) FROM daily_visitors WHERE day BETWEEN ?1 AND ?2",
        params![from, to],
        |r| r.get(0),
    )?;
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

    #[test]
    fn days_without_visits_are_zero_and_the_period_is_respected() {
        let (_dir, conn) = crate::db::open_for_tests();
        conn.execute_batch(
            "INSERT INTO page_views VALUES ('2026-11-20', 5), ('2026-11-22', 7), ('2026-10-01', 100);
             INSERT INTO route_views VALUES ('2026-11-20', '/', 3), ('2026-11-22', '/', 1), ('2026-11-22', '/commands', 8),
                                            ('2026-10-01', '/guides', 100);
             INSERT INTO daily_visitors VALUES ('2026-11-20', x'01'), ('2026-11-22', x'01'), ('2026-11-22', x'02');",
        )
        .unwrap();
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
}
