//! Paging and search parameters of the list endpoints: `page` and `limit` read as whole numbers
//! within their range, with a sentence naming the field when they are not.

use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::ApiError;

pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 100;
pub const MAX_PAGE: u32 = 100_000;
pub const MAX_QUERY_CHARS: usize = 100;

/// `page` and `limit` of a paged list, as sent (checked by [`paging`]).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Page number, 1 or more (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100000)]
    pub page: Option<String>,
    /// Items per page, 1-100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
}

/// Reads a whole-number query parameter within `range`, with a sentence for the form of the API.
pub fn number_param(
    name: &str,
    raw: Option<&str>,
    default: u32,
    range: std::ops::RangeInclusive<u32>,
) -> Result<u32, ApiError> {
    let Some(raw) = raw.map(str::trim) else { return Ok(default) };
    let (lo, hi) = (*range.start(), *range.end());
    match raw.parse::<u32>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(ApiError::field(name, &format!("{name} must be a whole number from {lo} to {hi}"))),
    }
}

/// `page` (1 or more) and `limit` (1-100, default 20).
pub fn paging(page: Option<&str>, limit: Option<&str>) -> Result<(u32, u32), ApiError> {
    Ok((number_param("page", page, 1, 1..=MAX_PAGE)?, number_param("limit", limit, DEFAULT_LIMIT, 1..=MAX_LIMIT)?))
}

/// The slice of `items` on `page` of `limit`.
pub fn page_of<T: Clone>(items: &[T], page: u32, limit: u32) -> Vec<T> {
    let start = (page as usize - 1).saturating_mul(limit as usize);
    items.iter().skip(start).take(limit as usize).cloned().collect()
}

/// A search query: 1-100 characters after trimming.
pub fn search_query(raw: Option<&str>) -> Result<String, ApiError> {
    let q = raw.map(str::trim).unwrap_or("");
    if q.is_empty() {
        return Err(ApiError::field("q", "Enter something to search for (q)"));
    }
    if q.chars().count() > MAX_QUERY_CHARS {
        return Err(ApiError::field("q", "Search queries may be at most 100 characters"));
    }
    Ok(q.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_is_validated_with_clear_messages() {
        assert_eq!(paging(None, None).unwrap(), (1, 20));
        assert_eq!(paging(Some(" 3"), Some("100")).unwrap(), (3, 100));
        for (page, limit, field) in [
            (Some("0"), None, "page"),
            (Some("-1"), None, "page"),
            (Some("abc"), None, "page"),
            (Some("1e3"), None, "page"),
            (Some("99999999999"), None, "page"),
            (None, Some("0"), "limit"),
            (None, Some("101"), "limit"),
            (None, Some(""), "limit"),
        ] {
            let e = paging(page, limit).unwrap_err();
            assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST);
            assert!(e.body.fields.as_ref().unwrap().contains_key(field), "{page:?} {limit:?}");
        }
        assert_eq!(
            paging(Some("2"), Some("101")).unwrap_err().body.error,
            "limit must be a whole number from 1 to 100"
        );
    }

    #[test]
    fn pages_and_queries() {
        let items: Vec<u32> = (1..=45).collect();
        assert_eq!(page_of(&items, 3, 20), (41..=45).collect::<Vec<_>>());
        assert!(page_of(&items, 4, 20).is_empty());
        assert!(page_of(&items, MAX_PAGE, MAX_LIMIT).is_empty());
        assert_eq!(search_query(Some("  fly ")).unwrap(), "fly");
        assert!(search_query(Some("   ")).is_err());
        assert!(search_query(None).is_err());
        assert!(search_query(Some(&"x".repeat(101))).is_err());
    }
}
