//! The SQL of advertising: applications, their review, and the one active sponsored banner.

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;
use utoipa::ToSchema;

use super::analysis::AdAnalysis;
use super::colors::Design;
use crate::db::{now_ms, rfc3339};
use crate::error::ApiError;

pub const DURATIONS: [&str; 3] = ["1-day", "1-month", "10-fullscreen"];

/// How long a banner runs from activation.
pub fn duration_ms(duration: &str) -> i64 {
    let days = match duration {
        "1-day" => 1,
        "1-month" => 30,
        _ => 10,
    };
    days * 24 * 3600 * 1000
}

pub struct NewAd {
    pub website_url: String,
    pub description: String,
    pub target_audience: Option<String>,
    pub duration: String,
    pub links: Vec<String>,
    pub image_name: String,
    pub image_type: String,
    pub image_width: u32,
    pub image_height: u32,
    pub premium_fullscreen: bool,
    pub fullscreen_message_type: Option<String>,
    pub fullscreen_custom_message: Option<String>,
    pub analysis: AdAnalysis,
    pub design: Design,
    pub submitted_from_ip: String,
}

pub fn insert(conn: &Connection, ad: &NewAd) -> Result<i64, ApiError> {
    conn.execute(
        "INSERT INTO advertisements (website_url, description, target_audience, duration, links, image_name, image_type,
            image_width, image_height, premium_fullscreen, fullscreen_message_type, fullscreen_custom_message, analysis,
            background_color, text_color, border_color, submitted_from_ip, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
        params![
            ad.website_url,
            ad.description,
            ad.target_audience,
            ad.duration,
            serde_json::to_string(&ad.links).map_err(ApiError::internal)?,
            ad.image_name,
            ad.image_type,
            ad.image_width,
            ad.image_height,
            ad.premium_fullscreen,
            ad.fullscreen_message_type,
            ad.fullscreen_custom_message,
            serde_json::to_string(&ad.analysis).map_err(ApiError::internal)?,
            ad.design.background_color,
            ad.design.text_color,
            ad.design.border_color,
            ad.submitted_from_ip,
            now_ms(),
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

fn status_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["pending", "approved", "rejected"])
}

/// An application as admins review it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Application {
    pub id: i64,
    pub website_url: String,
    pub ad_description: String,
    pub duration: String,
    pub target_audience: Option<String>,
    pub links: Vec<String>,
    /// pending, approved or rejected.
    #[schema(schema_with = status_values)]
    pub status: String,
    /// Whether it is the sponsored banner running now.
    pub is_active: bool,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub reviewed_at: Option<String>,
    /// `/uploads/NAME`; null once the image of a rejected application was deleted.
    pub image_path: Option<String>,
    /// When the image of a rejected application was deleted (the audit window had passed).
    #[schema(format = DateTime)]
    pub image_removed_at: Option<String>,
    pub premium_fullscreen: bool,
    pub fullscreen_message_type: Option<String>,
    pub fullscreen_custom_message: Option<String>,
    pub ai_analysis: AdAnalysis,
    /// The colours taken from the image, used when the ad is approved.
    pub design: Design,
}

const COLUMNS: &str = "a.id, a.website_url, a.description, a.duration, a.target_audience, a.links, a.status, \
    (SELECT COUNT(*) FROM active_ad x WHERE x.ad_id = a.id AND x.expires_at > ?1), a.created_at, a.reviewed_at, \
    a.image_name, a.premium_fullscreen, a.fullscreen_message_type, a.fullscreen_custom_message, a.analysis, \
    a.background_color, a.text_color, a.border_color, a.image_removed_at";

fn from_row(r: &Row) -> rusqlite::Result<Application> {
    let links: String = r.get(5)?;
    let analysis: String = r.get(14)?;
    let image: String = r.get(10)?;
    let image_removed_at: Option<i64> = r.get(18)?;
    Ok(Application {
        id: r.get(0)?,
        website_url: r.get(1)?,
        ad_description: r.get(2)?,
        duration: r.get(3)?,
        target_audience: r.get(4)?,
        links: serde_json::from_str(&links).unwrap_or_default(),
        status: r.get(6)?,
        is_active: r.get::<_, i64>(7)? > 0,
        created_at: rfc3339(r.get(8)?),
        reviewed_at: r.get::<_, Option<i64>>(9)?.map(rfc3339),
        image_path: image_removed_at.is_none().then(|| format!("/uploads/{image}")),
        image_removed_at: image_removed_at.map(rfc3339),
        premium_fullscreen: r.get(11)?,
        fullscreen_message_type: r.get(12)?,
        fullscreen_custom_message: r.get(13)?,
        ai_analysis: serde_json::from_str(&analysis)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(14, rusqlite::types::Type::Text, Box::new(e)))?,
        design: Design { background_color: r.get(15)?, text_color: r.get(16)?, border_color: r.get(17)? },
    })
}

/// Replaces an ad's analysis (when the language model's reading arrives).
pub fn set_analysis(conn: &Connection, id: i64, analysis: &AdAnalysis) -> Result<(), ApiError> {
    conn.execute(
        "UPDATE advertisements SET analysis = ?2 WHERE id = ?1",
        params![id, serde_json::to_string(analysis).map_err(ApiError::internal)?],
    )?;
    Ok(())
}

pub const STATUSES: [&str; 3] = ["pending", "approved", "rejected"];

/// One page of applications of one status, newest first; without a status, the pending and
/// approved ones (rejected applications leave the list and stay reachable by asking for them).
/// Older than the id `before` when given; with the id the next page starts before (none after the last).
pub fn list(
    conn: &Connection,
    status: Option<&str>,
    before: Option<i64>,
    limit: u32,
) -> Result<(Vec<Application>, Option<i64>), ApiError> {
    // Each case a range of the (status, id) index rather than `?2 IS NULL OR ...`, which none answers.
    let statuses = match status {
        Some(status) => format!(
            "a.status = '{}'",
            STATUSES.iter().find(|s| **s == status).ok_or_else(|| ApiError::internal("unknown status"))?
        ),
        None => "a.status IN ('pending', 'approved')".to_string(),
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM advertisements a WHERE {statuses} AND a.id < ?2 ORDER BY a.id DESC LIMIT ?3"
    ))?;
    let mut rows = stmt
        .query_map(params![now_ms(), before.unwrap_or(i64::MAX), i64::from(limit) + 1], from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    let next = if rows.len() > limit as usize {
        rows.truncate(limit as usize);
        rows.last().map(|a| a.id)
    } else {
        None
    };
    Ok((rows, next))
}

/// Rejected applications reviewed before `reviewed_before` whose image file is still kept:
/// (id, file name in uploads/).
pub fn rejected_images_due(conn: &Connection, reviewed_before: i64) -> Result<Vec<(i64, String)>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, image_name FROM advertisements
         WHERE status = 'rejected' AND image_removed_at IS NULL AND reviewed_at < ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([reviewed_before], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Records that the image file of application `id` is deleted.
pub fn mark_image_removed(conn: &Connection, id: i64, at_ms: i64) -> Result<(), ApiError> {
    conn.execute("UPDATE advertisements SET image_removed_at = ?2 WHERE id = ?1", params![id, at_ms])?;
    Ok(())
}

pub fn find(conn: &Connection, id: i64) -> Result<Option<Application>, ApiError> {
    Ok(conn
        .query_row(&format!("SELECT {COLUMNS} FROM advertisements a WHERE a.id = ?2"), params![now_ms(), id], from_row)
        .optional()?)
}

/// pending → approved or rejected; anything else is a conflict.
pub fn review(conn: &Connection, id: i64, status: &str) -> Result<Application, ApiError> {
    let ad = find(conn, id)?.ok_or_else(|| ApiError::not_found("No such advertisement."))?;
    if ad.status != "pending" {
        return Err(ApiError::conflict(format!("This advertisement was already {}.", ad.status))
            .with_message("Only pending applications can be approved or rejected."));
    }
    conn.execute(
        "UPDATE advertisements SET status = ?2, reviewed_at = ?3 WHERE id = ?1",
        params![id, status, now_ms()],
    )?;
    find(conn, id)?.ok_or_else(|| ApiError::internal("reviewed ad vanished"))
}

/// Makes an approved ad the sponsored banner from now, replacing any other.
pub fn activate(conn: &Connection, id: i64, design: &Design) -> Result<i64, ApiError> {
    let ad = find(conn, id)?.ok_or_else(|| ApiError::not_found("No such advertisement."))?;
    if ad.status != "approved" {
        return Err(ApiError::conflict("Only approved advertisements can become the banner."));
    }
    let now = now_ms();
    let expires = now + duration_ms(&ad.duration);
    conn.execute(
        "INSERT INTO active_ad (slot, ad_id, background_color, text_color, border_color, activated_at, expires_at)
         VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT(slot) DO UPDATE SET ad_id = excluded.ad_id, background_color = excluded.background_color,
            text_color = excluded.text_color, border_color = excluded.border_color,
            activated_at = excluded.activated_at, expires_at = excluded.expires_at",
        params![id, design.background_color, design.text_color, design.border_color, now, expires],
    )?;
    crate::events::record(
        conn,
        crate::events::BANNER_CHANGED,
        serde_json::json!({
            "banner": "sponsored",
            "backgroundColor": design.background_color,
            "textColor": design.text_color,
            "borderColor": design.border_color,
        }),
    )?;
    Ok(expires)
}

/// Ends the sponsored banner, if one runs; returns whether one did.
pub fn deactivate(conn: &Connection) -> Result<bool, ApiError> {
    let was_running: i64 =
        conn.query_row("SELECT COUNT(*) FROM active_ad WHERE expires_at > ?1", [now_ms()], |r| r.get(0))?;
    conn.execute("DELETE FROM active_ad", [])?;
    Ok(was_running > 0)
}

/// The sponsored banner running at `now_ms`, with its colours and expiry.
pub struct Running {
    pub ad: Application,
    pub design: Design,
    pub expires_at: i64,
}

pub fn running(conn: &Connection, at_ms: i64) -> Result<Option<Running>, ApiError> {
    let row: Option<(i64, String, String, String, i64)> = conn
        .query_row(
            "SELECT ad_id, background_color, text_color, border_color, expires_at FROM active_ad WHERE expires_at > ?1",
            [at_ms],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
    let Some((id, background_color, text_color, border_color, expires_at)) = row else { return Ok(None) };
    let Some(ad) = find(conn, id)? else { return Ok(None) };
    Ok(Some(Running { ad, design: Design { background_color, text_color, border_color }, expires_at }))
}

/// The sponsored banner running at `at_ms` as the banner shows it (the banner's
/// [`crate::banner::SponsorSource`]).
pub fn running_sponsor(conn: &Connection, at_ms: i64) -> Result<Option<crate::banner::Sponsor>, ApiError> {
    let Some(running) = running(conn, at_ms)? else { return Ok(None) };
    let Design { background_color, text_color, border_color } = running.design;
    Ok(Some(crate::banner::Sponsor {
        colors: crate::site::BannerColors { background_color, text_color, border_color },
        advertisement_id: running.ad.id,
        expires_at_ms: running.expires_at,
        advertisement: banner_fields(&running.ad),
    }))
}

/// The advertisement fields the bottom banner and the fullscreen ad show: the active banner's
/// `advertisement` (the banner feature carries it as JSON, since it cannot know this feature's types;
/// the OpenAPI document names this schema there).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SponsoredAd {
    pub id: i64,
    pub website_url: String,
    /// `/uploads/NAME`.
    pub image_path: Option<String>,
    pub ad_description: String,
    pub premium_fullscreen: bool,
    pub duration: String,
    pub fullscreen_message_type: Option<String>,
    pub fullscreen_custom_message: Option<String>,
    pub ai_analysis: AdAnalysis,
    pub links: Vec<String>,
}

fn banner_fields(ad: &Application) -> serde_json::Value {
    let sponsored = SponsoredAd {
        id: ad.id,
        website_url: ad.website_url.clone(),
        image_path: ad.image_path.clone(),
        ad_description: ad.ad_description.clone(),
        premium_fullscreen: ad.premium_fullscreen,
        duration: ad.duration.clone(),
        fullscreen_message_type: ad.fullscreen_message_type.clone(),
        fullscreen_custom_message: ad.fullscreen_custom_message.clone(),
        ai_analysis: ad.ai_analysis.clone(),
        links: ad.links.clone(),
    };
    serde_json::to_value(sponsored).expect("a sponsored ad serializes")
}

#[derive(Debug, Serialize, ToSchema, PartialEq, Eq, Default)]
pub struct Summary {
    pub approved: i64,
    pub pending: i64,
    pub active: i64,
}

pub fn summary(conn: &Connection) -> Result<Summary, ApiError> {
    let count = |status: &str| -> Result<i64, ApiError> {
        Ok(conn.query_row("SELECT COUNT(*) FROM advertisements WHERE status = ?1", [status], |r| r.get(0))?)
    };
    let active: i64 =
        conn.query_row("SELECT COUNT(*) FROM active_ad WHERE expires_at > ?1", [now_ms()], |r| r.get(0))?;
    Ok(Summary { approved: count("approved")?, pending: count("pending")?, active })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn ad(duration: &str) -> NewAd {
        NewAd {
            website_url: "https://a.example".into(),
            description: "An ad".into(),
            target_audience: None,
            duration: duration.into(),
            links: vec![],
            image_name: format!("{}.png", crate::tokens::random_hex(16)),
            image_type: "image/png".into(),
            image_width: 1,
            image_height: 1,
            premium_fullscreen: duration == "10-fullscreen",
            fullscreen_message_type: None,
            fullscreen_custom_message: None,
            analysis: super::super::analysis::heuristic("https://a.example", "An ad", &[]),
            design: Design {
                background_color: "#112233".into(),
                text_color: "#ffffff".into(),
                border_color: "#445566".into(),
            },
            submitted_from_ip: "192.0.2.0".into(),
        }
    }

    #[test]
    fn a_banner_runs_for_its_duration_from_activation_and_then_is_gone() {
        let (_dir, conn) = crate::db::open_for_tests();
        for (duration, days) in [("1-day", 1), ("1-month", 30), ("10-fullscreen", 10)] {
            let id = insert(&conn, &ad(duration)).unwrap();
            assert!(activate(&conn, id, &ad(duration).design).is_err(), "pending ads cannot run");
            review(&conn, id, "approved").unwrap();
            let before = now_ms();
            let expires = activate(&conn, id, &ad(duration).design).unwrap();
            assert!((expires - before - days * 86_400_000).abs() < 5_000, "{duration}");
            let running_now = running(&conn, now_ms()).unwrap().unwrap();
            assert_eq!((running_now.ad.id, running_now.expires_at), (id, expires));
            assert!(running(&conn, expires - 1).unwrap().is_some());
            assert!(running(&conn, expires).unwrap().is_none(), "the default is back at the expiry instant");
        }
        assert_eq!(summary(&conn).unwrap(), Summary { approved: 3, pending: 0, active: 1 });
        assert!(deactivate(&conn).unwrap());
        assert!(!deactivate(&conn).unwrap());
        assert!(running(&conn, now_ms()).unwrap().is_none());
        let id = insert(&conn, &ad("1-day")).unwrap();
        review(&conn, id, "rejected").unwrap();
        assert_eq!(review(&conn, id, "approved").unwrap_err().status, axum::http::StatusCode::CONFLICT);
    }
}
