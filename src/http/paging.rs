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

/// `limit` of a list paged by key: 1-100, default 20 (as [`paging`]).
pub fn keyset_limit(raw: Option<&str>) -> Result<u32, ApiError> {
    number_param("limit", raw, DEFAULT_LIMIT, 1..=MAX_LIMIT)
}

/// `cursor` of a list paged by id: the `nextCursor` of the page before (a row id), none for the first page.
pub fn id_cursor(raw: Option<&str>) -> Result<Option<i64>, ApiError> {
    let Some(raw) = raw.map(str::trim).filter(|r| !r.is_empty()) else { return Ok(None) };
    match raw.parse::<i64>() {
        Ok(id) if id > 0 => Ok(Some(id)),
        _ => Err(bad_cursor()),
    }
}

/// The answer to a cursor this list did not hand out.
pub fn bad_cursor() -> ApiError {
    ApiError::field("cursor", "cursor must be the nextCursor of the page before, unchanged")
}

/// Lists that moved from numbered pages to cursors still take `page=1` (the first page); a later
/// page number gets a sentence naming the replacement instead of the first page again.
pub fn first_page_only(raw: Option<&str>) -> Result<(), ApiError> {
    match raw.map(str::trim) {
        None | Some("1") => Ok(()),
        Some(_) => Err(ApiError::field("page", "This list is paged by cursor: send the nextCursor of the page before")),
    }
}

/// An optional search text: none when absent or blank, else at most 100 characters after trimming.
pub fn optional_search(raw: Option<&str>) -> Result<Option<String>, ApiError> {
    let q = raw.map(str::trim).unwrap_or("");
    if q.is_empty() {
        return Ok(None);
    }
    if q.chars().count() > MAX_QUERY_CHARS {
        return Err(ApiError::field("q", "Search queries may be at most 100 characters"));
    }
    Ok(Some(q.to_string()))
}

/// A `LIKE` pattern (with `ESCAPE '\'`) matching the texts that start with `prefix`: on a NOCASE
/// column SQLite answers it from the column's index, as a range.
pub fn like_prefix(prefix: &str) -> String {
    let mut pattern = String::with_capacity(prefix.len() + 1);
    for c in prefix.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
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

    #[test]
    fn keyset_parameters_are_validated_with_clear_messages() {
        assert_eq!(keyset_limit(None).unwrap(), 20);
        assert_eq!(keyset_limit(Some("100")).unwrap(), 100);
        for bad in ["-1", "0", "101", "1e9", "1000000000", "", "x"] {
            let e = keyset_limit(Some(bad)).unwrap_err();
            assert!(e.body.fields.as_ref().unwrap().contains_key("limit"), "{bad}");
        }
        assert_eq!(id_cursor(None).unwrap(), None);
        assert_eq!(id_cursor(Some(" ")).unwrap(), None);
        assert_eq!(id_cursor(Some("42")).unwrap(), Some(42));
        for bad in ["-3", "0", "abc", "1.5", "99999999999999999999", "' OR 1=1"] {
            let e = id_cursor(Some(bad)).unwrap_err();
            assert!(e.body.fields.as_ref().unwrap().contains_key("cursor"), "{bad}");
        }
        assert!(first_page_only(Some("1")).is_ok() && first_page_only(None).is_ok());
        assert!(first_page_only(Some("2")).unwrap_err().body.fields.unwrap().contains_key("page"));
        assert_eq!(optional_search(Some("  ")).unwrap(), None);
        assert_eq!(optional_search(Some(" Ab ")).unwrap().as_deref(), Some("Ab"));
        assert!(optional_search(Some(&"x".repeat(101))).is_err());
        assert_eq!(like_prefix("a_b%c\\"), "a\\_b\\%c\\\\%");
    }
}
