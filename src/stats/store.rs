//! The SQL behind the analytics figures: page views and unique visitors per UTC day and per route.

use std::collections::HashMap;

use rusqlite::{Connection, params};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;

#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DayFigures {
    /// YYYY-MM-DD (UTC).
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
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("a.db")).unwrap();
        crate::db::apply_migrations_for_tests(&mut conn);
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
