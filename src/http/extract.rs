//! Extractors whose rejections are the API's JSON errors instead of axum's plain text.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// `axum::Json` with JSON-shaped rejections: 400 broken/wrong-typed, 413 too large, 415 not JSON;
/// and the body must be a JSON object. serde reads a struct from a sequence by position, so
/// without this `["bob", "secret"]` would sign in as bob; every request body of the API is an
/// object, so one extractor refuses arrays and scalars for every route, new ones included.
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<ObjectBody<T>>::from_request(req, state).await {
            Ok(axum::Json(ObjectBody(v))) => Ok(Json(v)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

/// A `T` read only from a JSON object.
struct ObjectBody<T>(T);

pub const NOT_AN_OBJECT: &str = "the request body must be a JSON object";

impl<'de, T: DeserializeOwned> serde::Deserialize<'de> for ObjectBody<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(deserializer)? {
            object @ serde_json::Value::Object(_) => T::deserialize(object).map(ObjectBody).map_err(D::Error::custom),
            _ => Err(D::Error::custom(NOT_AN_OBJECT)),
        }
    }
}

fn json_rejection(rejection: JsonRejection) -> ApiError {
    let status = rejection.status();
    match status {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(status, "The request body is too large."),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            ApiError::new(status, "Send the request body as JSON (Content-Type: application/json).")
        }
        _ => {
            let detail = match &rejection {
                JsonRejection::JsonDataError(e) => e.body_text(),
                JsonRejection::JsonSyntaxError(_) => "The body is not valid JSON.".to_string(),
                other => other.body_text(),
            };
            ApiError::bad_request("The request body is not valid.").with_message(detail)
        }
    }
}

pub struct Query<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state).await.map(|q| Query(q.0)).map_err(
            |e: QueryRejection| ApiError::bad_request("The query string is not valid.").with_message(e.body_text()),
        )
    }
}

pub struct Path<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Path(p.0))
            .map_err(|e: PathRejection| ApiError::bad_request("The address is not valid.").with_message(e.body_text()))
    }
}

/// `#[serde(deserialize_with = "whole_number")]` for integers in JSON bodies: JSON Schema (and so
/// the OpenAPI document) counts `12.0` as the integer 12, so it is accepted like `12`.
pub fn whole_number<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    struct WholeNumber;
    impl serde::de::Visitor<'_> for WholeNumber {
        type Value = i64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a whole number")
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<i64, E> {
            Ok(v)
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<i64, E> {
            i64::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<i64, E> {
            // -2^63 and 2^63 are exact in f64; the range is half-open like i64's.
            if v.fract() == 0.0 && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&v) {
                Ok(v as i64)
            } else {
                Err(E::invalid_value(serde::de::Unexpected::Float(v), &self))
            }
        }
    }
    deserializer.deserialize_any(WholeNumber)
}

/// `#[serde(default, deserialize_with = "optional_whole_number")]` on an `Option<i64>`: like
/// [`whole_number`], with null or an absent field read as None.
pub fn optional_whole_number<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    #[derive(serde::Deserialize)]
    struct Whole(#[serde(deserialize_with = "whole_number")] i64);
    <Option<Whole> as serde::Deserialize>::deserialize(deserializer).map(|w| w.map(|Whole(v)| v))
}

/// `#[serde(default, deserialize_with = "not_null")]` on an `Option<T>`: the field may be left
/// out, but not sent as `null` (the document's schema for it has no null).
pub fn not_null<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::{NOT_AN_OBJECT, ObjectBody, not_null, optional_whole_number, whole_number};

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct MaybeId {
        #[serde(default, deserialize_with = "optional_whole_number")]
        id: Option<i64>,
    }

    #[test]
    fn an_optional_whole_number_takes_integral_floats_null_and_absence() {
        let read = |json: &str| serde_json::from_str::<MaybeId>(json).map(|m| m.id);
        assert_eq!(read(r#"{"id": -377.0}"#).unwrap(), Some(-377));
        assert_eq!(read(r#"{"id": 12}"#).unwrap(), Some(12));
        assert_eq!(read(r#"{"id": null}"#).unwrap(), None);
        assert_eq!(read("{}").unwrap(), None);
        assert!(read(r#"{"id": 1.5}"#).is_err());
        assert!(read(r#"{"id": "1"}"#).is_err());
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Credentials {
        username: String,
        password: String,
    }

    #[test]
    fn bodies_must_be_objects_not_arrays_or_scalars() {
        let read = |json: &str| serde_json::from_str::<ObjectBody<Credentials>>(json).map(|b| b.0);
        assert_eq!(
            read(r#"{"username": "bob", "password": "pw"}"#).unwrap(),
            Credentials { username: "bob".into(), password: "pw".into() }
        );
        // serde alone reads a struct from a sequence by position: the extractor must not.
        assert!(serde_json::from_str::<Credentials>(r#"["bob", "pw"]"#).is_ok());
        for bad in [r#"["bob", "pw"]"#, r#""bob""#, "5", "null", "true", "[]"] {
            let err = read(bad).unwrap_err().to_string();
            assert!(err.contains(NOT_AN_OBJECT), "{bad}: {err}");
        }
        let err = read(r#"{"username": "bob"}"#).unwrap_err().to_string();
        assert!(err.contains("password"), "a missing field is still named: {err}");
        // The field helpers work through the object as they do straight from the text.
        assert_eq!(serde_json::from_str::<ObjectBody<N>>(r#"{"n": -243.0}"#).unwrap().0.n, -243);
        assert!(serde_json::from_str::<ObjectBody<O>>(r#"{"o": null}"#).is_err());
    }

    #[derive(serde::Deserialize, Debug)]
    struct N {
        #[serde(deserialize_with = "whole_number")]
        n: i64,
    }

    #[derive(serde::Deserialize, Debug)]
    struct O {
        #[serde(default, deserialize_with = "not_null")]
        o: Option<String>,
    }

    #[test]
    fn optional_fields_may_be_missing_but_not_null() {
        assert_eq!(serde_json::from_str::<O>("{}").unwrap().o, None);
        assert_eq!(serde_json::from_str::<O>(r#"{"o": "x"}"#).unwrap().o.as_deref(), Some("x"));
        assert!(serde_json::from_str::<O>(r#"{"o": null}"#).is_err());
    }

    #[test]
    fn whole_numbers_may_be_written_as_floats() {
        let n = |json: &str| serde_json::from_str::<N>(json).map(|v| v.n);
        assert_eq!(n(r#"{"n": 12}"#).unwrap(), 12);
        assert_eq!(n(r#"{"n": -243.0}"#).unwrap(), -243);
        assert_eq!(n(r#"{"n": 1e3}"#).unwrap(), 1000);
        for bad in
            [r#"{"n": 1.5}"#, r#"{"n": 1e300}"#, r#"{"n": 18446744073709551615}"#, r#"{"n": "1"}"#, r#"{"n": null}"#]
        {
            assert!(n(bad).is_err(), "{bad}");
        }
    }
}
