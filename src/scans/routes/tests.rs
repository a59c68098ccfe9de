use super::leaderboards::slice_bounds;
use super::*;
use serde_json::json;

#[test]
fn a_page_is_the_part_of_the_ranking_it_shows() {
    assert_eq!(slice_bounds(250, 0, 100), (0, 100));
    assert_eq!(slice_bounds(250, 200, 100), (200, 250), "the last page is partial");
    assert_eq!(slice_bounds(250, 300, 100), (250, 250), "past the end: empty");
    assert_eq!(slice_bounds(0, 0, 20), (0, 0));
    assert_eq!(slice_bounds(10, u64::MAX, 100), (10, 10));
}

#[test]
fn group_ids_are_whole_numbers_in_range_written_as_json_numbers_or_digits() {
    for ok in [json!(7), json!(7.0), json!("7"), json!("0042"), json!("999999999999999"), json!(9007199254740991u64)] {
        assert!(parse_group_id("groupId", &ok).is_ok(), "{ok}");
    }
    for bad in [
        json!(0),
        json!(-3),
        json!(7.5),
        json!(1e300),
        json!("7.0"),
        json!("+7"),
        json!(null),
        json!(9007199254740992u64),
        json!(" 42 "),
        json!("0"),
        json!("1000000000000000"),
    ] {
        assert!(parse_group_id("groupId", &bad).is_err(), "{bad}");
    }
    // The document's pattern says exactly what a string may be.
    let pattern = regex_lite::Regex::new(GROUP_ID_TEXT_PATTERN).unwrap();
    for text in ["7", "0042", "999999999999999", " 42 ", "0", "000", "1000000000000000", "+7", "7.0", ""] {
        assert_eq!(pattern.is_match(text), parse_group_id("groupId", &json!(text)).is_ok(), "{text:?}");
    }
}
