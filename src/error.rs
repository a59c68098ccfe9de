//! The one error type of the HTTP API. Every failure leaves the server as
//! `{"error": sentence, "message"?: detail, "fields"?: {name: sentence}}`.

use std::collections::BTreeMap;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Every error answer: a sentence fit for a toast, an optional detail, and on validation errors
/// one sentence per invalid field.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub fields: Option<BTreeMap<String, String>>,
}

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    /// Boxed so `Result<T, ApiError>` stays small on the happy path.
    pub body: Box<ErrorBody>,
    pub retry_after_secs: Option<u64>,
    /// What went wrong inside, for the log only (never sent).
    pub internal: Option<String>,
}

/// Marker left on a 500 response so the request-id middleware can log the cause with the id
/// and put the id into the body.
#[derive(Clone, Debug)]
pub struct InternalErrorDetail(pub String);

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, error: impl Into<String>) -> Self {
        Self {
            status,
            body: Box::new(ErrorBody { error: error.into(), message: None, fields: None }),
            retry_after_secs: None,
            internal: None,
        }
    }
    pub fn bad_request(error: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, error)
    }
    pub fn unauthorized(error: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, error)
    }
    pub fn forbidden(error: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, error)
    }
    pub fn not_found(error: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, error)
    }
    pub fn conflict(error: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, error)
    }
    pub fn too_many_requests(retry_after_secs: u64) -> Self {
        let mut e = Self::new(StatusCode::TOO_MANY_REQUESTS, "Too many requests. Please wait and try again.");
        e.retry_after_secs = Some(retry_after_secs.max(1));
        e
    }
    pub fn unavailable(error: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, error)
    }
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        let mut e = Self::new(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong on our side.");
        e.internal = Some(cause.to_string());
        e
    }
    /// A write that failed for want of disk space: 507, and the disk is marked full.
    pub fn out_of_space(what: &str) -> Self {
        crate::disk::DATA_DISK.ran_out(what);
        Self::new(StatusCode::INSUFFICIENT_STORAGE, OUT_OF_SPACE)
            .with_message("Writes are saved again as soon as the server's disk has room; please try again later.")
    }
    pub fn is_out_of_space(&self) -> bool {
        self.status == StatusCode::INSUFFICIENT_STORAGE
    }
    /// A validation error: one sentence per field, the first also as the toast sentence.
    pub fn validation(fields: BTreeMap<String, String>) -> Self {
        let first = fields.values().next().cloned().unwrap_or_else(|| "Invalid input".into());
        let mut e = Self::bad_request(first);
        e.body.fields = Some(fields);
        e
    }
    pub fn field(name: &str, sentence: &str) -> Self {
        Self::validation(BTreeMap::from([(name.to_string(), sentence.to_string())]))
    }
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.body.message = Some(message.into());
        self
    }
}

/// The sentence of every 507 answer.
pub const OUT_OF_SPACE: &str = "The server is out of disk space; nothing was saved.";

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        if crate::disk::sqlite_out_of_space(&e) {
            return Self::out_of_space(&format!("database: {e}"));
        }
        Self::internal(format!("database: {e}"))
    }
}

/// File system failures: out of space is a 507, anything else a 500.
impl From<std::io::Error> for ApiError {
    fn from(e: std::io::Error) -> Self {
        if crate::disk::io_out_of_space(&e) {
            return Self::out_of_space(&format!("file write: {e}"));
        }
        Self::internal(e)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.body.error)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut res = (self.status, axum::Json(&self.body)).into_response();
        if let Some(secs) = self.retry_after_secs {
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if let Some(detail) = self.internal {
            res.extensions_mut().insert(InternalErrorDetail(detail));
        }
        res
    }
}
