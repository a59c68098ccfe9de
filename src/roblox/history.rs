//! The monitored badges' figures per day over up to 400 days (`badge_days`), for the badge
//! monitor's 30, 90 and 365-day charts and for download: JSON, or CSV for a spreadsheet. Public
//! and the same for everyone, so a shared cache keeps them like the monitor itself.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::monitor::HistoryPoint;
use super::routes::RobloxState;
use super::store;
use crate::error::ApiError;
use crate::http::cached::{Caching, JsonBody, respond_bytes};
use crate::http::extract::{Path, Query};
use crate::http::paging::number_param;

const DAY_MS: i64 = 86_400_000;
/// Days a history covers when the request names none.
pub const DEFAULT_DAYS: u32 = 30;

/// The range and the form of a history.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// Days covered, ending today (UTC): 1 to 400, default 30.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 400)]
    days: Option<String>,
    /// `csv` for a spreadsheet (`text/csv`, a header row, ISO dates); `json` (the default) otherwise.
    #[param(schema_with = formats)]
    format: Option<String>,
}

fn formats() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["json", "csv"])
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct BadgeHistory {
    pub badge_id: u64,
    pub name: String,
    /// The first day this site has figures for, whatever the range (null: none yet).
    #[schema(format = Date)]
    pub since: Option<String>,
    /// The day of the range with the most awards (null when the range has no day).
    pub best_day: Option<HistoryPoint>,
    /// The range's days with figures, oldest first; a day without a poll is absent, not zero.
    pub days: Vec<HistoryPoint>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct BadgeHistoryAnswer {
    pub success: bool,
    /// Days covered.
    pub days: u32,
    /// The first day of the range (UTC, YYYY-MM-DD).
    pub from: String,
    /// The last day of the range: today (UTC).
    pub to: String,
    pub badges: Vec<BadgeHistory>,
}

/// Every monitored badge's figures per day.
#[utoipa::path(get, path = "/api/badge-monitor/history", tag = "roblox", operation_id = "getAllBadgeHistory",
    params(HistoryQuery),
    responses((status = 200, description = "Each monitored badge's days, as JSON or CSV",
            content((BadgeHistoryAnswer = "application/json"), (String = "text/csv"))),
        (status = 304, description = "Not modified"),
        (status = 400, description = "A range or format the API does not take", body = crate::error::ErrorBody)))]
pub(crate) async fn all_history(
    State(state): State<Arc<RobloxState>>,
    Query(q): Query<HistoryQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    all_badges(&state, &q, &headers, Caching::BADGE_MONITOR).await
}

/// One monitored badge's figures per day.
#[utoipa::path(get, path = "/api/badge-monitor/{badgeId}/history", tag = "roblox", operation_id = "getBadgeHistory",
    params(("badgeId" = u64, Path, description = "A badge the monitor follows"), HistoryQuery),
    responses((status = 200, description = "The badge's days, as JSON or CSV",
            content((BadgeHistoryAnswer = "application/json"), (String = "text/csv"))),
        (status = 304, description = "Not modified"),
        (status = 400, description = "A range or format the API does not take", body = crate::error::ErrorBody),
        (status = 404, description = "The monitor does not follow this badge", body = crate::error::ErrorBody)))]
pub(crate) async fn badge_history(
    State(state): State<Arc<RobloxState>>,
    Path(badge_id): Path<u64>,
    Query(q): Query<HistoryQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    one_badge(&state, badge_id, &q, &headers, Caching::BADGE_MONITOR).await
}

/// Every monitored badge's figures per day, for key holders (the same answer as
/// `GET /api/badge-monitor/history`, counted against the key's limits).
#[utoipa::path(get, path = "/api/v1/badge-history", tag = "developer API", operation_id = "v1AllBadgeHistory",
    params(HistoryQuery), security(("apiKey" = [])),
    responses((status = 200, description = "Each monitored badge's days, as JSON or CSV",
            content((BadgeHistoryAnswer = "application/json"), (String = "text/csv"))),
        (status = 304, description = "Not modified"),
        (status = 400, description = "A range or format the API does not take", body = crate::error::ErrorBody)))]
pub(crate) async fn v1_all_history(
    State(state): State<Arc<RobloxState>>,
    Query(q): Query<HistoryQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    all_badges(&state, &q, &headers, Caching::PRIVATE).await
}

/// One monitored badge's figures per day, for key holders.
#[utoipa::path(get, path = "/api/v1/badge-history/{badgeId}", tag = "developer API", operation_id = "v1BadgeHistory",
    params(("badgeId" = u64, Path, description = "A badge the monitor follows"), HistoryQuery), security(("apiKey" = [])),
    responses((status = 200, description = "The badge's days, as JSON or CSV",
            content((BadgeHistoryAnswer = "application/json"), (String = "text/csv"))),
        (status = 304, description = "Not modified"),
        (status = 400, description = "A range or format the API does not take", body = crate::error::ErrorBody),
        (status = 404, description = "The monitor does not follow this badge", body = crate::error::ErrorBody)))]
pub(crate) async fn v1_badge_history(
    State(state): State<Arc<RobloxState>>,
    Path(badge_id): Path<u64>,
    Query(q): Query<HistoryQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    one_badge(&state, badge_id, &q, &headers, Caching::PRIVATE).await
}

/// The public and the keyed answer differ only in who may keep them (`caching`).
async fn all_badges(
    state: &RobloxState,
    q: &HistoryQuery,
    headers: &HeaderMap,
    caching: Caching,
) -> Result<Response, ApiError> {
    let (days, csv) = read_query(q)?;
    respond(state, state.roblox.monitored_badges(), days, csv, headers, "badge-history", caching).await
}

async fn one_badge(
    state: &RobloxState,
    badge_id: u64,
    q: &HistoryQuery,
    headers: &HeaderMap,
    caching: Caching,
) -> Result<Response, ApiError> {
    let (days, csv) = read_query(q)?;
    let badge = state.roblox.monitored_badges().into_iter().find(|(id, _)| *id == badge_id);
    let Some(badge) = badge else {
        return Err(ApiError::not_found("This badge is not followed by the badge monitor of this site.")
            .with_message("GET /api/badge-monitor lists the badges it follows."));
    };
    respond(state, vec![badge], days, csv, headers, &format!("badge-{badge_id}-history"), caching).await
}

fn read_query(q: &HistoryQuery) -> Result<(u32, bool), ApiError> {
    let days = number_param("days", q.days.as_deref(), DEFAULT_DAYS, 1..=store::BADGE_DAYS_KEPT as u32)?;
    let csv = match q.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(_) => return Err(ApiError::field("format", "format must be json or csv")),
    };
    Ok((days, csv))
}

async fn respond(
    state: &RobloxState,
    badges: Vec<(u64, String)>,
    days: u32,
    csv: bool,
    headers: &HeaderMap,
    file_stem: &str,
    caching: Caching,
) -> Result<Response, ApiError> {
    let now = crate::db::now_ms();
    let from = store::utc_day(now - (i64::from(days) - 1) * DAY_MS);
    let to = store::utc_day(now);
    let range_start = from.clone();
    let badges = state
        .db
        .read(move |c| {
            let mut out = Vec::with_capacity(badges.len());
            for (badge_id, name) in badges {
                let days = store::badge_days(c, badge_id, &range_start)?;
                let best_day = best_day(&days);
                out.push(BadgeHistory { badge_id, name, since: store::first_badge_day(c, badge_id)?, best_day, days });
            }
            Ok(out)
        })
        .await?;
    let answer = BadgeHistoryAnswer { success: true, days, from, to, badges };
    if !csv {
        let body = JsonBody::from_bytes(serde_json::to_vec(&answer).map_err(|e| ApiError::internal(e.to_string()))?);
        return Ok(respond_bytes(&body, headers, caching, "application/json"));
    }
    let body = JsonBody::from_bytes(to_csv(&answer).into_bytes());
    let mut res = respond_bytes(&body, headers, caching, "text/csv; charset=utf-8");
    let disposition = format!("attachment; filename=\"{file_stem}-{}d-{}.csv\"", answer.days, answer.to);
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        res.headers_mut().insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(res)
}

/// The day with the most awards, the first of equals (as the page finds it for the monitor's 7 days).
fn best_day(days: &[HistoryPoint]) -> Option<HistoryPoint> {
    // `max_by_key` keeps the last of equals, so it reads the days newest first.
    days.iter().rev().max_by_key(|d| d.past_day).cloned()
}

/// One row per badge and day under a header row (RFC 4180).
fn to_csv(answer: &BadgeHistoryAnswer) -> String {
    let mut out = String::from("badge_id,badge_name,date,awarded_past_day,awarded_total\r\n");
    for badge in &answer.badges {
        let name = csv_field(&badge.name);
        for day in &badge.days {
            out.push_str(&format!("{},{name},{},{},{}\r\n", badge.badge_id, day.date, day.past_day, day.awarded_count));
        }
    }
    out
}

/// A text field for a spreadsheet: quoted with its quotes doubled, and every piece a spreadsheet
/// could run as a formula made text by a `'` before it. A piece starts the field or follows a
/// character some locale splits cells on (`,` `;` tab `|`), and is a formula when its first
/// character past any whitespace (a no-break space too) is `=`, `+`, `-`, `@`, their fullwidth
/// forms, a tab or a return.
fn csv_field(text: &str) -> String {
    const FORMULA: [char; 10] = ['=', '+', '-', '@', '\u{FF1D}', '\u{FF0B}', '\u{FF0D}', '\u{FF20}', '\t', '\r'];
    const CELL_BREAKS: [char; 4] = [',', ';', '\t', '|'];
    let mut out = String::with_capacity(text.len() + 4);
    let mut piece_start = true;
    for c in text.chars() {
        if piece_start && FORMULA.contains(&c) {
            out.push('\'');
            piece_start = false;
        } else if piece_start && !c.is_whitespace() {
            piece_start = false;
        }
        out.push(c);
        if CELL_BREAKS.contains(&c) {
            piece_start = true;
        }
    }
    format!("\"{}\"", out.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_day_is_the_first_of_equals() {
        let day = |date: &str, past_day| HistoryPoint { date: date.into(), awarded_count: 0, past_day };
        let days = [day("2026-11-25", 5), day("2026-11-26", 9), day("2026-11-27", 9)];
        assert_eq!(best_day(&days).unwrap().date, "2026-11-26");
        assert!(best_day(&[]).is_none());
    }

    #[test]
    fn csv_quotes_names_and_disarms_formulas() {
        assert_eq!(csv_field("Early \"ELC\" Badge"), "\"Early \"\"ELC\"\" Badge\"");
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_field("-1, a"), "\"'-1, a\"");
        assert_eq!(csv_field(" =1+1"), "\" '=1+1\"", "after a space");
        assert_eq!(csv_field("\u{a0}=1+1"), "\"\u{a0}'=1+1\"", "after a no-break space");
        assert_eq!(csv_field("\u{FF1D}1+1"), "\"'\u{FF1D}1+1\"", "a fullwidth equals sign");
        assert_eq!(csv_field("Badge;=1+1"), "\"Badge;'=1+1\"", "after a semicolon, a cell in some locales");
        assert_eq!(csv_field("Mid-Alpha Badge 2"), "\"Mid-Alpha Badge 2\"", "a hyphen inside a word is left");
        let answer = BadgeHistoryAnswer {
            success: true,
            days: 2,
            from: "2026-11-26".into(),
            to: "2026-11-27".into(),
            badges: vec![BadgeHistory {
                badge_id: 7,
                name: "B, 7".into(),
                since: Some("2026-11-26".into()),
                best_day: None,
                days: vec![HistoryPoint { date: "2026-11-26".into(), awarded_count: 500, past_day: 40 }],
            }],
        };
        assert_eq!(
            to_csv(&answer),
            "badge_id,badge_name,date,awarded_past_day,awarded_total\r\n7,\"B, 7\",2026-11-26,40,500\r\n"
        );
    }
}
