//! Group scans: start one, its status, resume one.

use super::*;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ScanRequest {
    /// The Roblox group id: a whole number, or a string of up to 15 digits.
    #[schema(schema_with = super::group_id_schema, required = true)]
    group_id: Option<serde_json::Value>,
    /// Who asked, shown with the scan: 1-64 characters after trimming, no control characters.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 64, pattern = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$")]
    scanned_by: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ScanAnswer {
    success: bool,
    scan_id: i64,
    /// True when the group already had a live scan and this is it.
    existing: bool,
    message: String,
    scan: ScanStatus,
}

/// Starts a background scan of a Roblox group (202), or returns the group's running scan (200).
#[utoipa::path(post, path = "/api/v1/scan-group", tag = "developer API", operation_id = "v1ScanGroup", request_body = ScanRequest,
    security(("apiKey" = [])),
    responses((status = 202, description = "Scan queued", body = ScanAnswer), (status = 200, description = "The group's running scan", body = ScanAnswer),
        (status = 400, description = "Bad group id or scannedBy"), (status = 401, description = "No or bad API key"),
        (status = 404, description = "No such group"), (status = 413, description = "Body too large"), (status = 415, description = "Not JSON"),
        (status = 422, description = "The group has no members"),
        (status = 429, description = "Rate limit reached, or the scan queue is full: this key's scans queued or running (`[scans] queued_per_key`) or the site's (`queued_site_wide`); the error says which"),
        (status = 502, description = "Roblox is unreachable or failed", body = crate::error::ErrorBody),
        (status = 503, description = "Roblox is rate-limiting", body = crate::error::ErrorBody),
        (status = 504, description = "Roblox did not answer in time", body = crate::error::ErrorBody)))]
pub async fn scan_group(
    State(state): State<Arc<ScansState>>,
    Extension(caller): Extension<ApiCaller>,
    JsonBody(body): JsonBody<ScanRequest>,
) -> Result<Response, ApiError> {
    let group_id = parse_group_id("groupId", body.group_id.as_ref().unwrap_or(&serde_json::Value::Null))?;
    let scanned_by = plain_text("scannedBy", body.scanned_by.as_deref(), 1, SCANNED_BY_MAX)?;
    if let Some(live) = state.db.read(move |c| store::live_scan_of_group(c, group_id)).await? {
        return Ok(scan_answer(&state, live, false, StatusCode::OK));
    }
    // A full queue is refused before Roblox is asked about the group (and again when queueing).
    let key_id = Some(caller.0.id);
    let s = state.clone();
    state.db.read(move |c| s.settings.room_for_one_more(c, key_id)).await?;
    let group = state.roblox.group_info(group_id, Priority::Interactive).await?;
    if group.member_count == 0 {
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "This group has no members to scan.")
            .with_message(format!("Roblox lists no members for group {group_id}.")));
    }
    let s = state.clone();
    let (row, new) = state
        .db
        .write(move |tx| {
            if let Some(live) = store::live_scan_of_group(tx, group_id)? {
                return Ok((live, false));
            }
            s.settings.room_for_one_more(tx, key_id)?;
            store::queue_scan(tx, group_id, &group.name, group.member_count, &scanned_by, key_id, now_ms())
        })
        .await?;
    if new {
        state.scans.wake.notify_one();
    }
    Ok(scan_answer(&state, row, new, if new { StatusCode::ACCEPTED } else { StatusCode::OK }))
}

fn scan_answer(state: &ScansState, row: store::ScanRow, new: bool, status: StatusCode) -> Response {
    let message = if new {
        format!("Scan {} of group {} queued.", row.id, row.group_id)
    } else {
        format!("Group {} is already being scanned (scan {}).", row.group_id, row.id)
    };
    let answer = ScanAnswer { success: true, scan_id: row.id, existing: !new, message, scan: status_of(state, row) };
    (status, Json(answer)).into_response()
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusAnswer {
    success: bool,
    scan: ScanStatus,
}

/// A scan's progress: processed/total, veterans and newgens found, the measured rate and time
/// left. Poll it with `If-None-Match` (304 while nothing changed).
#[utoipa::path(get, path = "/api/v1/scan-status/{id}", tag = "developer API", operation_id = "v1ScanStatus",
    params(("id" = u64, Path, description = "The scan id", minimum = 1, maximum = 9007199254740991.0)), security(("apiKey" = [])),
    responses((status = 200, body = StatusAnswer), (status = 304, description = "Not modified"), (status = 400, description = "Bad id"),
        (status = 401, description = "No or bad API key"), (status = 404, description = "No such scan"), (status = 429, description = "Rate limit reached")))]
pub async fn scan_status(
    State(state): State<Arc<ScansState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = path_id("id", &id)? as i64;
    if let Some(body) = state.scans.fresh_status(id) {
        return Ok(crate::http::cached::respond_json(&body, &headers, Caching::PRIVATE));
    }
    let row =
        state.db.read(move |c| store::scan(c, id)).await?.ok_or_else(|| ApiError::not_found("No scan has this id."))?;
    let answer = StatusAnswer { success: true, scan: status_of(&state, row) };
    let body =
        Arc::new(crate::http::cached::JsonBody::from_bytes(serde_json::to_vec(&answer).map_err(ApiError::internal)?));
    state.scans.keep_status(id, body.clone());
    Ok(crate::http::cached::respond_json(&body, &headers, Caching::PRIVATE))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ResumeRequest {
    #[schema(value_type = u64, required = true, minimum = 1, maximum = 9007199254740991.0)]
    scan_id: Option<serde_json::Value>,
}

/// Puts a failed or cancelled scan back in the queue where it stopped (202). A scan still
/// running is returned as it is (200); a completed one is a 409. Only the API key that started
/// the scan, or an admin (`X-Admin-Key` or an admin session beside the API key), may resume it;
/// a scan an admin cancelled only an admin. A resume by the key counts against the queue caps.
#[utoipa::path(post, path = "/api/v1/resume-scan", tag = "developer API", operation_id = "v1ResumeScan", request_body = ResumeRequest,
    security(("apiKey" = [])),
    responses((status = 202, description = "Queued again", body = ScanAnswer), (status = 200, description = "Already running", body = ScanAnswer),
        (status = 400, description = "Bad scanId"), (status = 401, description = "No or bad API key"),
        (status = 403, description = "Another key started this scan, or an admin cancelled it (only an admin may resume it then)"),
        (status = 404, description = "No such scan"),
        (status = 409, description = "Completed, or another scan of the group runs"), (status = 413, description = "Body too large"),
        (status = 415, description = "Not JSON"),
        (status = 429, description = "Rate limit reached, or the scan queue is full (per key or site-wide; the error says which)")))]
pub async fn resume_scan(
    State(state): State<Arc<ScansState>>,
    Extension(caller): Extension<ApiCaller>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ResumeRequest>,
) -> Result<Response, ApiError> {
    let id = parse_group_id("scanId", body.scan_id.as_ref().unwrap_or(&serde_json::Value::Null))? as i64;
    let admin = crate::accounts::guard::resolve(&state.admin_gate, &headers, &client).await?.is_some();
    resume(&state, id, if admin { Resumer::Admin } else { Resumer::Key(caller.0.id) }).await
}

/// Who asks to resume a scan.
#[derive(Clone, Copy)]
pub enum Resumer {
    Admin,
    /// The API key of the call.
    Key(i64),
}

/// Resumes scan `id` for `by`: the rules of `resume_scan`, checked in the transaction that
/// requeues, so a cancel that lands meanwhile is not undone.
pub async fn resume(state: &ScansState, id: i64, by: Resumer) -> Result<Response, ApiError> {
    let before =
        state.db.read(move |c| store::scan(c, id)).await?.ok_or_else(|| ApiError::not_found("No scan has this id."))?;
    match before.state.as_str() {
        "completed" => return Err(ApiError::conflict("This scan is complete; start a new one with scan-group.")),
        "queued" | "running" => return Ok(scan_answer(state, before, false, StatusCode::OK)),
        _ => {}
    }
    let s = state.clone();
    let after = state
        .db
        .write(move |tx| {
            let Some(row) = store::scan(tx, id)? else { return Ok(None) };
            if let Resumer::Key(key_id) = by {
                if row.key_id != Some(key_id) {
                    return Err(ApiError::forbidden(
                        "Only the API key that started this scan, or an admin, can resume it.",
                    ));
                }
                if row.state == "cancelled" {
                    return Err(ApiError::forbidden("An admin cancelled this scan; only an admin can resume it."));
                }
                if row.state == "failed" && store::live_scan_of_group(tx, row.group_id)?.is_none() {
                    s.settings.room_for_one_more(tx, Some(key_id))?;
                }
            }
            store::requeue(tx, id, now_ms())
        })
        .await?
        .ok_or_else(|| ApiError::not_found("No scan has this id."))?;
    state.scans.forget_status(id);
    if after.id != id {
        return Err(ApiError::conflict(format!("Group {} is being scanned by scan {}.", after.group_id, after.id)));
    }
    state.scans.wake.notify_one();
    Ok(scan_answer(state, after, true, StatusCode::ACCEPTED))
}
