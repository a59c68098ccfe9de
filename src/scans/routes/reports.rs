//! Abuse reports: the limits of a report and its checks.

use super::*;

pub const REPORTS_PER_HOUR: u32 = 5;
/// The reason of an abuse report is free text of at most this many characters.
pub const REASON_MAX: usize = 100;
pub use crate::scans::store::PRIORITIES;
pub const DESCRIPTION_MIN: usize = 10;
pub const DESCRIPTION_MAX: usize = 1000;

/// 5 abuse reports an hour per client IP.
/// The limit on abuse reports from one address.
pub fn report_limit() -> PerIp {
    PerIp::per_hour(REPORTS_PER_HOUR, "abuse reports")
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ReportRequest {
    /// A Roblox username (3-20 letters, digits, at most one underscore not at either end).
    #[schema(value_type = String, required = true, min_length = 3, max_length = 20, pattern = r"^[A-Za-z0-9]+(_[A-Za-z0-9]+)?$")]
    reporter_username: Option<String>,
    /// A Roblox username, not the reporter's.
    #[schema(value_type = String, required = true, min_length = 3, max_length = 20, pattern = r"^[A-Za-z0-9]+(_[A-Za-z0-9]+)?$")]
    target_username: Option<String>,
    /// Why, in the reporter's words: 1-100 characters after trimming, no control characters (for
    /// example griefing). The report's `category` is derived from it: exploiting, scamming,
    /// harassment, impersonation, inappropriate-content or botting when it names one (any case),
    /// else other.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 100, pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$")]
    reason: Option<String>,
    /// 10-1000 characters after trimming, no control characters but tabs and line breaks; stored
    /// and shown as plain text.
    #[schema(value_type = String, required = true, min_length = 10, max_length = 1000, pattern = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$")]
    description: Option<String>,
    /// low, medium (default), high or urgent; any case.
    #[schema(value_type = Option<String>, pattern = r"^\s*([Ll][Oo][Ww]|[Mm][Ee][Dd][Ii][Uu][Mm]|[Hh][Ii][Gg][Hh]|[Uu][Rr][Gg][Ee][Nn][Tt])?\s*$")]
    priority: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportAnswer {
    success: bool,
    message: String,
    report: AbuseReport,
}

/// Files an abuse report for the admins (5 an hour per IP).
#[utoipa::path(post, path = "/api/v1/report-abuse", tag = "developer API", operation_id = "v1ReportAbuse", request_body = ReportRequest,
    security(("apiKey" = [])),
    responses((status = 201, body = ReportAnswer), (status = 400, description = "A field is invalid (fields names each)"),
        (status = 401, description = "No or bad API key"), (status = 413, description = "Body too large"), (status = 415, description = "Not JSON"),
        (status = 429, description = "Rate limit reached (the key's, or 5 reports an hour per IP)")))]
pub async fn report_abuse(
    State(state): State<Arc<ScansState>>,
    Extension(client): Extension<ClientIp>,
    Extension(caller): Extension<ApiCaller>,
    JsonBody(body): JsonBody<ReportRequest>,
) -> Result<(StatusCode, Json<ReportAnswer>), ApiError> {
    let report = validate_report(&body)?;
    state.scans.reports.check(client.rate_key())?;
    let key_id = Some(caller.0.id);
    let (id, saved) = state
        .db
        .write(move |tx| {
            let new = store::NewReport {
                reporter_username: &report.0,
                target_username: &report.1,
                reason: &report.2,
                description: &report.3,
                priority: &report.4,
                key_id,
            };
            let id = store::add_report(tx, &new, now_ms())?;
            Ok((id, store::report(tx, id)?))
        })
        .await?;
    let report = saved.ok_or_else(|| ApiError::internal(format!("report {id} vanished")))?;
    Ok((
        StatusCode::CREATED,
        Json(ReportAnswer { success: true, message: "Report received; an admin will review it.".into(), report }),
    ))
}

/// (reporter, target, reason, description, priority), every problem named by its field.
fn validate_report(body: &ReportRequest) -> Result<(String, String, String, String, String), ApiError> {
    let mut fields = std::collections::BTreeMap::new();
    let mut username = |field: &str, raw: Option<&str>| {
        let name = raw.map(str::trim).unwrap_or("");
        match crate::roblox::classify::check_username(name) {
            Ok(()) => name.to_string(),
            Err(why) => {
                fields.insert(field.to_string(), format!("{field}: {why}"));
                String::new()
            }
        }
    };
    let reporter = username("reporterUsername", body.reporter_username.as_deref());
    let target = username("targetUsername", body.target_username.as_deref());
    if !reporter.is_empty() && reporter.eq_ignore_ascii_case(&target) {
        fields.insert("targetUsername".into(), "targetUsername must not be the reporter".into());
    }
    let reason = match plain_text("reason", body.reason.as_deref(), 1, REASON_MAX) {
        Ok(r) if !r.contains(['\n', '\r', '\t']) => r,
        Ok(_) => {
            fields.insert("reason".into(), "reason must be one line".into());
            String::new()
        }
        Err(e) => {
            fields.extend(e.body.fields.clone().unwrap_or_default());
            String::new()
        }
    };
    let description = match plain_text("description", body.description.as_deref(), DESCRIPTION_MIN, DESCRIPTION_MAX) {
        Ok(d) => d,
        Err(e) => {
            fields.extend(e.body.fields.clone().unwrap_or_default());
            String::new()
        }
    };
    let priority =
        body.priority.as_deref().map(str::trim).filter(|p| !p.is_empty()).unwrap_or("medium").to_ascii_lowercase();
    if !PRIORITIES.contains(&priority.as_str()) {
        fields.insert("priority".into(), format!("priority must be one of: {}", PRIORITIES.join(", ")));
    }
    if !fields.is_empty() {
        return Err(ApiError::validation(fields));
    }
    Ok((reporter, target, reason, description, priority))
}
