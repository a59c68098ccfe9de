//! The keyed `/api/v1` calls of group scans, leaderboards, search and abuse reports, one file
//! per topic (`scan.rs`, `leaderboards.rs`, `reports.rs`), with the checks of their input that
//! they share here. The key guard (`keys::guard`) runs in front of every one of them (see
//! `v1::router`).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::store::{self, AbuseReport, GroupSummary, PlayerEntry, Sort};
use super::{ScanStatus, ScansState};
use crate::db::now_ms;
use crate::error::ApiError;
use crate::http::cached::{self, Caching, respond_json};
use crate::http::client_ip::ClientIp;
use crate::http::extract::{Json as JsonBody, Path, Query};
use crate::http::paging::{DEFAULT_LIMIT, MAX_LIMIT, PageQuery, number_param, paging, search_query};
use crate::keys::guard::ApiCaller;
use crate::ratelimit::PerIp;
use crate::roblox::Priority;
use crate::roblox::settings::GenerationCode;

mod leaderboards;
mod reports;
mod scan;

pub use leaderboards::*;
pub use reports::*;
pub use scan::*;

const SCANNED_BY_MAX: usize = 64;
/// Roblox group ids are positive and below 2^53 (JSON numbers stay exact).
const MAX_GROUP_ID: u64 = (1 << 53) - 1;

/// A positive id (a JSON number, or a string of digits).
fn parse_group_id(field: &str, value: &serde_json::Value) -> Result<u64, ApiError> {
    let id = match value {
        // JSON has one number type: 42.0 is the whole number 42 (as JSON Schema's `integer` says).
        serde_json::Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64().filter(|f| f.fract() == 0.0 && (1.0..=MAX_GROUP_ID as f64).contains(f)).map(|f| f as u64)
        }),
        serde_json::Value::String(s) if is_group_id_text(s) => s.parse::<u64>().ok(),
        _ => None,
    };
    id.filter(|id| (1..=MAX_GROUP_ID).contains(id))
        .ok_or_else(|| ApiError::field(field, &format!("{field} must be a whole number from 1 to {MAX_GROUP_ID}")))
}

/// The pattern a group id written as a string follows in the OpenAPI document, and exactly what
/// [`is_group_id_text`] takes: digits only, leading zeros allowed, at most 15 after them (a
/// string cannot carry a numeric maximum; 15 digits stay below it).
pub const GROUP_ID_TEXT_PATTERN: &str = "^0*[1-9][0-9]{0,14}$";

fn is_group_id_text(s: &str) -> bool {
    let significant = s.trim_start_matches('0');
    s.bytes().all(|b| b.is_ascii_digit()) && (1..=15).contains(&significant.len())
}

/// `groupId` of a request body: a whole number, or a string of digits.
pub fn group_id_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
    let one_of = OneOfBuilder::new()
        .item(
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Int64)))
                .minimum(Some(1))
                .maximum(Some(MAX_GROUP_ID as f64)),
        )
        .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some(GROUP_ID_TEXT_PATTERN)))
        .description(Some(
            "The Roblox group id: a whole number from 1 to 9007199254740991, or a string of up to 15 digits",
        ))
        .build();
    Schema::OneOf(one_of)
}

/// A group id in a path: digits only, 1 to the largest id.
fn path_id(field: &str, raw: &str) -> Result<u64, ApiError> {
    raw.parse::<u64>()
        .ok()
        .filter(|id| raw.bytes().all(|b| b.is_ascii_digit()) && (1..=MAX_GROUP_ID).contains(id))
        .ok_or_else(|| ApiError::field(field, &format!("{field} must be a whole number from 1 to {MAX_GROUP_ID}")))
}

/// Printable text of 1-`max` characters after trimming.
fn plain_text(field: &str, raw: Option<&str>, min: usize, max: usize) -> Result<String, ApiError> {
    let text = raw.map(str::trim).unwrap_or("");
    let n = text.chars().count();
    if n < min || n > max {
        return Err(ApiError::field(field, &format!("{field} must be {min} to {max} characters long")));
    }
    if text.chars().any(|c| c.is_control() && c != '\n' && c != '\r' && c != '\t') {
        return Err(ApiError::field(field, &format!("{field} may not contain control characters")));
    }
    Ok(text.to_string())
}

fn status_of(state: &ScansState, row: store::ScanRow) -> ScanStatus {
    ScanStatus::of(row, &state.scans, &state.roblox)
}

#[cfg(test)]
mod tests;
