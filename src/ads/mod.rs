//! Advertising: the advertise form's intake (`POST /api/advertise`), the uploaded images
//! (`/uploads/NAME`), and the admins' review that turns an application into the sponsored banner
//! (`review`).

pub mod analysis;
pub mod colors;
pub mod image;
pub mod review;
pub mod store;

use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;

use crate::ratelimit::PerIp;
use axum::Extension;
use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::http::client_ip::{ClientIp, anonymize};
use crate::http::extract::Path;

/// What advertising uses: the database, the uploads' data dir, the image work gate, the
/// submission limit, the language model (if any) and the served banner a review changes.
#[derive(Clone)]
pub struct AdsState {
    /// The admin check (with the host's second-factor policy).
    pub admin_gate: crate::accounts::guard::AdminGate,
    pub db: crate::db::Db,
    pub data_dir: Arc<FsPath>,
    pub heavy_work: crate::heavy::HeavyWork,
    pub submissions: Arc<PerIp>,
    pub llm: Option<crate::llm::LlmClient>,
    pub banner: Arc<crate::banner::ServedBanner>,
}

/// The whole multipart request (image, fields and framing).
pub const MULTIPART_LIMIT: usize = 6 * 1024 * 1024;
pub const SUBMISSIONS_PER_HOUR: u32 = 5;
pub const TARGET_AUDIENCES: [&str; 5] =
    ["young-gamers", "roblox-players", "game-developers", "general-gaming", "server-admins"];
const MAX_URL: usize = 2048;
const MAX_DESCRIPTION: usize = 1000;
const MAX_LINKS: usize = 10;
const MAX_CUSTOM_MESSAGE: usize = 200;
const MAX_TEXT_FIELD: usize = 16 * 1024;
const MISSING: &str = "Missing Information: Please fill in website URL, description, and upload an image";

/// The limit on advertisement submissions from one address.
pub fn submission_limit() -> PerIp {
    PerIp::per_hour(SUBMISSIONS_PER_HOUR, "advertisement submissions")
}

pub fn uploads_dir(data_dir: &FsPath) -> PathBuf {
    data_dir.join("uploads")
}

/// How often the images of rejected advertisements past their audit window are deleted.
const IMAGE_SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Advertising's background work: a rejected advertisement's image is kept for its audit window,
/// then deleted by this hourly sweep.
pub fn background(background: &mut crate::jobs::Background, state: AdsState) {
    background.job("rejected-ad-images", |job| {
        crate::jobs::every(IMAGE_SWEEP_EVERY, None, move || {
            let (db, uploads, job) = (state.db.clone(), uploads_dir(&state.data_dir), job.clone());
            async move {
                let swept = db.write(move |tx| review::sweep_rejected_images(tx, &uploads, crate::db::now_ms())).await;
                match job.report(swept) {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("deleted the images of {n} rejected advertisements"),
                    Err(e) => tracing::warn!("rejected advertisement images not deleted: {e}"),
                }
            }
        })
    });
}

pub fn router<S: Clone + Send + Sync + 'static>(state: AdsState) -> Router<S> {
    Router::new()
        .route("/api/advertise", post(submit).layer(DefaultBodyLimit::max(MULTIPART_LIMIT)))
        .route("/uploads/{name}", get(upload))
        .with_state(state)
}

#[derive(Serialize, ToSchema)]
pub struct Submitted {
    success: bool,
    id: i64,
    message: String,
}

/// What the advertise form sends, as multipart parts. The patterns state
/// exactly what the server accepts (it also trims surrounding spaces, which the patterns leave out).
#[derive(ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct AdForm {
    /// An http(s) web address with a host, at most 2048 characters, no spaces, control characters, `<`, `>` or `"`.
    #[schema(
        min_length = 8,
        max_length = 2048,
        pattern = r#"^https?://[^\s/:<>"\x00-\x1f\x7f-\x9f][^\s<>"\x00-\x1f\x7f-\x9f]*$"#
    )]
    website_url: String,
    /// 1-1000 characters, not only spaces.
    #[schema(min_length = 1, max_length = 1000, pattern = r"\S")]
    ad_description: String,
    /// young-gamers, roblox-players, game-developers, general-gaming or server-admins (optional).
    #[schema(pattern = "^(young-gamers|roblox-players|game-developers|general-gaming|server-admins)?$")]
    target_audience: Option<String>,
    /// 1-day, 1-month or 10-fullscreen.
    #[schema(pattern = "^(1-day|1-month|10-fullscreen)$")]
    duration: String,
    /// A JSON array of up to 10 http(s) web addresses (each as `websiteUrl`), at most 4096 characters.
    #[schema(
        max_length = 4096,
        pattern = r#"^(\[\]|\["https?://[^\s/:<>"\\\x00-\x1f\x7f-\x9f][^\s<>"\\\x00-\x1f\x7f-\x9f]{0,2039}"(,"https?://[^\s/:<>"\\\x00-\x1f\x7f-\x9f][^\s<>"\\\x00-\x1f\x7f-\x9f]{0,2039}"){0,9}\])?$"#
    )]
    links: Option<String>,
    /// PNG, JPEG, WebP or GIF; at most 5 MB and 4096 pixels a side.
    #[schema(value_type = String, format = Binary, min_length = 1)]
    image: Vec<u8>,
    /// Ignored: the 10-fullscreen duration is the premium fullscreen ad.
    premium_fullscreen: Option<String>,
    /// ai-generated (default) or user-input; read only with 10-fullscreen.
    #[schema(pattern = "^(ai-generated|user-input)?$")]
    fullscreen_message_type: Option<String>,
    /// At most 200 characters, with user-input.
    #[schema(max_length = 200)]
    fullscreen_custom_message: Option<String>,
}

#[derive(Default)]
struct Parts {
    website_url: Option<String>,
    description: Option<String>,
    target_audience: Option<String>,
    duration: Option<String>,
    links: Option<String>,
    image: Option<(String, Vec<u8>)>,
    premium: Option<String>,
    message_type: Option<String>,
    custom_message: Option<String>,
}

fn bad(field: &str, sentence: &str) -> ApiError {
    ApiError::field(field, sentence)
}

async fn read_parts(mut form: Multipart) -> Result<Parts, ApiError> {
    let mut parts = Parts::default();
    let broken = |e: axum::extract::multipart::MultipartError| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "The upload is too large.")
                .with_message("The image may be at most 5 MB.")
        } else {
            ApiError::bad_request("The form could not be read.").with_message(e.body_text())
        }
    };
    while let Some(field) = form.next_field().await.map_err(broken)? {
        let name = field.name().unwrap_or("").to_string();
        if name == "image" {
            let file_name = field.file_name().unwrap_or("").to_string();
            if file_name.contains(['/', '\\']) || file_name.contains("..") || file_name.chars().any(char::is_control) {
                return Err(bad("image", "The image's file name is not allowed."));
            }
            let declared = field.content_type().unwrap_or("application/octet-stream").to_ascii_lowercase();
            if !(declared.starts_with("image/") || declared == "application/octet-stream") || declared.contains("svg") {
                return Err(ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "The image must be a PNG, JPEG, WebP or GIF file.",
                ));
            }
            let bytes = field.bytes().await.map_err(broken)?;
            if bytes.len() > image::MAX_BYTES {
                return Err(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "The image may be at most 5 MB."));
            }
            parts.image = Some((file_name, bytes.to_vec()));
            continue;
        }
        let text = field.text().await.map_err(broken)?;
        if text.len() > MAX_TEXT_FIELD {
            return Err(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "A form field is too long.")
                .with_message(format!("{name} is over 16 KB.")));
        }
        let slot = match name.as_str() {
            "websiteUrl" => &mut parts.website_url,
            "adDescription" => &mut parts.description,
            "targetAudience" => &mut parts.target_audience,
            "duration" => &mut parts.duration,
            "links" => &mut parts.links,
            "premiumFullscreen" => &mut parts.premium,
            "fullscreenMessageType" => &mut parts.message_type,
            "fullscreenCustomMessage" => &mut parts.custom_message,
            _ => continue,
        };
        *slot = Some(text);
    }
    Ok(parts)
}

fn http_url(field: &str, raw: &str) -> Result<String, ApiError> {
    let url = raw.trim();
    let ok = url.len() <= MAX_URL
        && (url.starts_with("https://") || url.starts_with("http://"))
        && url.split("://").nth(1).is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'))
        && !url.chars().any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>' || c == '"');
    if ok {
        Ok(url.to_string())
    } else {
        Err(bad(field, "Enter a web address starting with https:// (at most 2048 characters)"))
    }
}

/// The checked fields of a submission (everything but the image).
struct Fields {
    website_url: String,
    description: String,
    target_audience: Option<String>,
    duration: String,
    links: Vec<String>,
    premium: bool,
    message_type: Option<String>,
    custom_message: Option<String>,
}

fn check_fields(parts: &Parts) -> Result<Fields, ApiError> {
    let website = parts.website_url.as_deref().map(str::trim).unwrap_or("");
    let description = parts.description.as_deref().map(str::trim).unwrap_or("");
    if website.is_empty() || description.is_empty() || parts.image.as_ref().is_none_or(|(_, b)| b.is_empty()) {
        return Err(ApiError::bad_request(MISSING));
    }
    let website_url = http_url("websiteUrl", website)?;
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(bad("adDescription", "The description may be at most 1000 characters"));
    }
    let duration = parts.duration.as_deref().map(str::trim).unwrap_or("");
    if !store::DURATIONS.contains(&duration) {
        return Err(bad("duration", "Choose a duration: 1-day, 1-month or 10-fullscreen"));
    }
    let target_audience = match parts.target_audience.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) if TARGET_AUDIENCES.contains(&t) => Some(t.to_string()),
        Some(_) => return Err(bad("targetAudience", "Choose a target audience from the list")),
        None => None,
    };
    let raw_links: Vec<String> = match parts.links.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
        // JSON `null` is no links, as an empty or absent part is.
        Some(json) => serde_json::from_str::<Option<Vec<String>>>(json)
            .map_err(|_| bad("links", "Links must be a JSON array of web addresses"))?
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let links: Vec<String> = raw_links
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .map(|l| http_url("links", l))
        .collect::<Result<_, _>>()?;
    if links.len() > MAX_LINKS {
        return Err(bad("links", "At most 10 additional links"));
    }
    // Premium options exist only with 10-fullscreen, which is itself the premium fullscreen ad.
    let fullscreen = duration == "10-fullscreen";
    let premium = fullscreen;
    let (message_type, custom_message) = if fullscreen {
        let kind = parts.message_type.as_deref().map(str::trim).filter(|k| !k.is_empty()).unwrap_or("ai-generated");
        if !["ai-generated", "user-input"].contains(&kind) {
            return Err(bad("fullscreenMessageType", "The message type is ai-generated or user-input"));
        }
        let message = parts.custom_message.as_deref().map(str::trim).filter(|m| !m.is_empty());
        if message.is_some_and(|m| m.chars().count() > MAX_CUSTOM_MESSAGE) {
            return Err(bad("fullscreenCustomMessage", "The custom message may be at most 200 characters"));
        }
        (Some(kind.to_string()), if kind == "user-input" { message.map(str::to_string) } else { None })
    } else {
        (None, None)
    };
    Ok(Fields {
        website_url,
        description: description.to_string(),
        target_audience,
        duration: duration.to_string(),
        links,
        premium,
        message_type,
        custom_message,
    })
}

/// Submit an advertisement for manual review (multipart form). 5 submissions an hour per IP,
/// counted (and refused) before the form is read.
#[utoipa::path(post, path = "/api/advertise", tag = "ads", operation_id = "submitAdvertisement",
    request_body(content = AdForm, content_type = "multipart/form-data"),
    responses((status = 201, body = Submitted), (status = 400, description = "Missing or invalid fields, unreadable image"),
        (status = 413, description = "Image over 5 MB, or a Content-Length over the 6 MiB form limit (refused before the body is read)"), (status = 415, description = "Not a PNG, JPEG, WebP or GIF"),
        (status = 429, description = "More than 5 submissions this hour from this IP (refused before the body is read)")))]
pub(crate) async fn submit(
    State(state): State<AdsState>,
    Extension(client): Extension<ClientIp>,
    req: axum::extract::Request,
) -> Result<Response, ApiError> {
    // Both refusals come before the body is read, so a refused client cannot make the server
    // take in megabytes first.
    let refused = if content_length(req.headers()).is_some_and(|n| n > MULTIPART_LIMIT as u64) {
        Err(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "The form may be at most 6 MB with its image."))
    } else {
        state.submissions.check(client.rate_key())
    };
    if let Err(e) = refused {
        discard_in_background(req.into_body());
        return Err(e);
    }
    let form = Multipart::from_request(req, &state).await.map_err(|e| {
        ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "Send the form as multipart/form-data.")
            .with_message(e.body_text())
    })?;
    let parts = read_parts(form).await?;
    let fields = check_fields(&parts)?;
    let (file_name, bytes) = parts.image.unwrap_or_default();
    let uploads = uploads_dir(&state.data_dir);
    // Decoding, re-encoding and the file write are heavy, blocking work.
    let stored = state
        .heavy_work
        .run(crate::heavy::HeavyKind::Uploads, move || -> Result<_, ApiError> {
            let clean = image::clean(&bytes, &file_name).map_err(|p| match p {
                image::ImageProblem::NotAnImage | image::ImageProblem::WrongExtension { .. } => {
                    ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, p.sentence())
                }
                image::ImageProblem::TooLarge => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, p.sentence()),
                _ => bad("image", &p.sentence()),
            })?;
            let name = format!("{}.{}", crate::tokens::random_hex(16), clean.extension);
            // A temporary file renamed into place: a failed write (a full disk: 507) leaves no half file.
            let mut tmp = tempfile::NamedTempFile::new_in(&uploads)?;
            std::io::Write::write_all(&mut tmp, &clean.bytes)?;
            tmp.as_file().sync_all()?;
            tmp.persist(uploads.join(&name)).map_err(|e| ApiError::from(e.error))?;
            Ok((name, clean))
        })
        .await??;
    let (name, clean) = stored;
    let analysis = analysis::heuristic(&fields.website_url, &fields.description, &fields.links);
    let for_llm = (fields.website_url.clone(), fields.description.clone(), fields.links.clone());
    let ad = store::NewAd {
        website_url: fields.website_url,
        description: fields.description,
        target_audience: fields.target_audience,
        duration: fields.duration,
        links: fields.links,
        image_name: name.clone(),
        image_type: clean.content_type.to_string(),
        image_width: clean.width,
        image_height: clean.height,
        premium_fullscreen: fields.premium,
        fullscreen_message_type: fields.message_type,
        fullscreen_custom_message: fields.custom_message,
        analysis,
        design: clean.design,
        submitted_from_ip: anonymize(client.ip),
    };
    let inserted = state.db.write(move |tx| store::insert(tx, &ad)).await;
    let id = match inserted {
        Ok(id) => id,
        Err(e) => {
            // No row, no file.
            let _ = std::fs::remove_file(uploads_dir(&state.data_dir).join(&name));
            return Err(e);
        }
    };
    tracing::info!("advertisement {id} submitted for review");
    if let Some(llm) = state.llm.clone() {
        // The language model's reading replaces the heuristic one when it arrives; the answer
        // to the advertiser does not wait for it.
        let state = state.clone();
        tokio::spawn(async move {
            let (url, description, links) = for_llm;
            match analysis::with_llm(&llm, &url, &description, &links).await {
                Ok(reading) => {
                    if let Err(e) = state.db.write(move |tx| store::set_analysis(tx, id, &reading)).await {
                        tracing::warn!("advertisement {id}: analysis not saved: {e}");
                    }
                }
                Err(e) => tracing::warn!("advertisement {id}: kept the heuristic analysis: {e}"),
            }
        });
    }
    let body =
        Submitted { success: true, id, message: "Your advertisement request has been sent for manual review.".into() };
    Ok((StatusCode::CREATED, axum::Json(body)).into_response())
}

fn content_length(headers: &axum::http::HeaderMap) -> Option<u64> {
    headers.get(header::CONTENT_LENGTH)?.to_str().ok()?.trim().parse().ok()
}

/// How much of a refused request's body is read and dropped, and for how long, so that a client
/// still sending gets the refusal instead of a reset connection (nothing is kept).
const DISCARD_AT_MOST: usize = 16 * 1024 * 1024;
const DISCARD_FOR: std::time::Duration = std::time::Duration::from_secs(10);

fn discard_in_background(body: Body) {
    tokio::spawn(async move {
        let mut body = std::pin::pin!(body);
        let mut seen = 0usize;
        let _ = tokio::time::timeout(DISCARD_FOR, async {
            while let Some(Ok(frame)) = http_body_util::BodyExt::frame(&mut body).await {
                seen += frame.data_ref().map_or(0, |d| d.len());
                if seen > DISCARD_AT_MOST {
                    break;
                }
            }
        })
        .await;
    });
}

/// An uploaded ad image, by the random name the server gave it.
#[utoipa::path(get, path = "/uploads/{name}", tag = "ads", operation_id = "getUpload",
    params(("name" = String, Path, description = "The stored file's name", pattern = r"^[0-9a-f]{32}\.(png|jpg|webp)$")),
    responses((status = 200, description = "The image", content((String = "image/png"), (String = "image/jpeg"), (String = "image/webp"))), (status = 404, description = "No such upload")))]
pub(crate) async fn upload(State(state): State<AdsState>, Path(name): Path<String>) -> Result<Response, ApiError> {
    let not_found = || ApiError::not_found("No such file.");
    let (stem, ext) = name.rsplit_once('.').ok_or_else(not_found)?;
    let content_type = match ext {
        "png" => "image/png",
        "jpg" => "image/jpeg",
        "webp" => "image/webp",
        _ => return Err(not_found()),
    };
    if stem.len() != 32 || !stem.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return Err(not_found());
    }
    // Streamed from the file: a page view costs a read buffer, not the whole image in memory.
    let file = tokio::fs::File::open(uploads_dir(&state.data_dir).join(&name)).await.map_err(|_| not_found())?;
    let length = file.metadata().await.map_err(|_| not_found())?.len();
    let mut res = Response::new(Body::from_stream(tokio_util::io::ReaderStream::new(file)));
    let h = res.headers_mut();
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, crate::http::cached::Caching::IMMUTABLE.header());
    h.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("inline"));
    Ok(res)
}
