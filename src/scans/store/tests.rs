use super::*;
use crate::roblox::store::like_prefix;

fn outcome(id: u64, outcome: &'static str) -> MemberOutcome {
    MemberOutcome { user_id: id, role_name: "Member".into(), role_rank: 1, outcome }
}

#[test]
fn one_live_scan_per_group_and_a_redone_page_counts_nobody_twice() {
    let (_dir, mut conn) = crate::db::open_for_tests();
    let tx = conn.transaction().unwrap();
    let (a, new) = queue_scan(&tx, 7, "G", 3, "me", None, 1).unwrap();
    assert!(new);
    let (b, new) = queue_scan(&tx, 7, "G", 3, "you", None, 2).unwrap();
    assert!(!new);
    assert_eq!(a.id, b.id);
    assert!(
        tx.execute(
            "INSERT INTO scans (group_id, scanned_by, state, created_at, updated_at) VALUES (7, 'x', 'running', 1, 1)",
            []
        )
        .is_err(),
        "the unique index refuses a second live scan"
    );
    mark_running(&tx, a.id, 3).unwrap();
    let page = [outcome(1, "veteran"), outcome(2, "newgen")];
    assert_eq!(record_page(&tx, a.id, 7, &page, Some("c1"), 4).unwrap(), 2);
    // the same page again (a crash before the cursor moved, or a repeating cursor)
    assert_eq!(record_page(&tx, a.id, 7, &page, Some("c1"), 5).unwrap(), 0);
    assert_eq!(record_page(&tx, a.id, 7, &[outcome(3, "failed")], None, 6).unwrap(), 1);
    let s = scan(&tx, a.id).unwrap().unwrap();
    assert_eq!((s.processed, s.veterans, s.newgens, s.failed, s.pages), (3, 1, 1, 1, 3));
    assert_eq!(s.cursor, None);
    note_once(&tx, a.id, "first").unwrap();
    note_once(&tx, a.id, "second").unwrap();
    assert!(finish(&tx, a.id, "completed", None, 7).unwrap());
    let s = scan(&tx, a.id).unwrap().unwrap();
    assert_eq!((s.state.as_str(), s.notice.as_deref()), ("completed", Some("first")));
    assert_eq!(
        record_page(&tx, a.id, 7, &[outcome(9, "veteran")], None, 8).unwrap(),
        0,
        "a finished scan takes no pages"
    );
    let (again, new) = queue_scan(&tx, 7, "G", 3, "me", None, 9).unwrap();
    assert!(new && again.id != a.id);
    assert_eq!(dashboard(&tx).unwrap(), (1, 2, 0, 3));
    tx.commit().unwrap();
}

#[test]
fn search_takes_wildcards_literally() {
    assert_eq!(like_prefix("a_b%"), "a\\_b\\%%");
    let (_dir, mut conn) = crate::db::open_for_tests();
    let tx = conn.transaction().unwrap();
    for (id, name) in [(1u64, "Ab_c"), (2, "Abxc"), (3, "zed")] {
        let row = crate::roblox::store::PlayerRow {
            user_id: id,
            username: name.into(),
            display_name: name.into(),
            verified: false,
            banned: false,
            created: format!("201{id}-01-01T00:00:00Z"),
            generation: "OLDGEN".into(),
            classification: "Veteran".into(),
            is_newgen: false,
            is_veteran: true,
            elc_count: Some(id as u32),
            confidence: 80,
            checked_at: 1,
        };
        crate::roblox::store::upsert_player(&tx, &row).unwrap();
    }
    let hits = search_players(&tx, "ab_", 10).unwrap();
    assert_eq!(hits.iter().map(|p| p.username.as_str()).collect::<Vec<_>>(), vec!["Ab_c"]);
    let (page, total) = leaderboard(&tx, Some("OLDGEN"), Sort::Elc, 1, 1).unwrap();
    assert_eq!((page[0].username.as_str(), page[0].rank, total), ("Abxc", 2, 3));
    assert_eq!(leaderboard(&tx, Some("NEWGEN"), Sort::Elc, 0, 10).unwrap().1, 0);
    tx.commit().unwrap();
}

fn player(
    id: u64,
    generation: &str,
    elc: Option<u32>,
    created_year: u64,
    checked_at: i64,
) -> crate::roblox::store::PlayerRow {
    crate::roblox::store::PlayerRow {
        user_id: id,
        username: format!("P{id}"),
        display_name: format!("P{id}"),
        verified: false,
        banned: false,
        created: format!("{created_year}-01-01T00:00:00Z"),
        generation: generation.into(),
        classification: "Veteran".into(),
        is_newgen: generation == "NEWGEN",
        is_veteran: generation != "NEWGEN",
        elc_count: elc,
        confidence: 80,
        checked_at,
    }
}

#[test]
fn the_counts_follow_every_change_and_pages_walk_each_order_without_overlap() {
    let (_dir, mut conn) = crate::db::open_for_tests();
    let tx = conn.transaction().unwrap();
    let generations = ["VETERAN", "OLDGEN", "MIDGEN", "NEWGEN"];
    // Many ties (same year, same ELC count, same check time), so only the user id orders them.
    for id in 1..=250u64 {
        let elc = if id % 5 == 0 { None } else { Some((id % 3) as u32) };
        let row = player(id, generations[(id % 4) as usize], elc, 2010 + id % 4, (id % 6) as i64);
        crate::roblox::store::upsert_player(&tx, &row).unwrap();
    }
    assert_eq!(player_count(&tx, None).unwrap(), 250);
    assert_eq!(player_count(&tx, Some("OLDGEN")).unwrap(), 63);
    // A player re-checked into another generation moves between the counts; a lookup without
    // award dates keeps the count an earlier one found.
    crate::roblox::store::upsert_player(&tx, &player(1, "NEWGEN", None, 2024, 9)).unwrap();
    assert_eq!((player_count(&tx, Some("OLDGEN")).unwrap(), player_count(&tx, Some("NEWGEN")).unwrap()), (62, 63));
    tx.execute("DELETE FROM players WHERE user_id = 2", []).unwrap();
    assert_eq!((player_count(&tx, None).unwrap(), player_count(&tx, Some("MIDGEN")).unwrap()), (249, 62));
    assert_eq!(player_count(&tx, Some("Nothing")).unwrap(), 0);

    for generation in [None, Some("OLDGEN")] {
        for sort in Sort::NAMES.map(|n| Sort::parse(n).unwrap()) {
            let mut expected: Vec<(i64, Option<u32>, String, i64)> = tx
                .prepare(
                    "SELECT user_id, elc_count, created, checked_at FROM players WHERE ?1 IS NULL OR generation = ?1",
                )
                .unwrap()
                .query_map([generation], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            expected.sort_by(|a, b| match sort {
                // None sorts last: Option's order puts it first, so reverse.
                Sort::Elc => b.1.cmp(&a.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)),
                Sort::Oldest => a.2.cmp(&b.2).then(a.0.cmp(&b.0)),
                Sort::Newest => b.2.cmp(&a.2).then(b.0.cmp(&a.0)),
                Sort::Recent => b.3.cmp(&a.3).then(b.0.cmp(&a.0)),
            });
            let mut walked = Vec::new();
            for page in 0.. {
                let (entries, total) = leaderboard(&tx, generation, sort, page * 7, 7).unwrap();
                assert_eq!(total, expected.len() as u64);
                if entries.is_empty() {
                    break;
                }
                for (i, e) in entries.iter().enumerate() {
                    assert_eq!(e.rank, page * 7 + i as u64 + 1);
                }
                walked.extend(entries.iter().map(|e| e.user_id));
            }
            let expected: Vec<u64> = expected.iter().map(|e| e.0 as u64).collect();
            assert_eq!(walked, expected, "{generation:?} {sort:?}");
            let ids = ranking_ids(&tx, generation, sort).unwrap();
            assert_eq!(ids.iter().map(|id| *id as u64).collect::<Vec<_>>(), expected, "{generation:?} {sort:?}");
            let (page, _) = leaderboard(&tx, generation, sort, 14, 7).unwrap();
            assert_eq!(players_in_order(&tx, &ids[14..21], 15).unwrap(), page, "{generation:?} {sort:?}");
        }
    }
    tx.commit().unwrap();
}

/// A finished scan of `group` with these members; returns its id.
fn finished_scan(tx: &rusqlite::Transaction, group: u64, state: &str, members: &[u64], at: i64) -> i64 {
    let (s, _) = queue_scan(tx, group, "G", members.len() as u64, "me", None, at).unwrap();
    mark_running(tx, s.id, at).unwrap();
    let page: Vec<MemberOutcome> = members.iter().map(|id| outcome(*id, "veteran")).collect();
    record_page(tx, s.id, group, &page, None, at).unwrap();
    assert!(finish(tx, s.id, state, None, at).unwrap());
    s.id
}

fn members_of(tx: &rusqlite::Transaction, scan: i64) -> i64 {
    tx.query_row("SELECT COUNT(*) FROM scan_members WHERE scan_id = ?1", [scan], |r| r.get(0)).unwrap()
}

#[test]
fn a_group_keeps_its_newest_scans_its_last_completed_one_and_an_unannounced_one() {
    let (_dir, mut conn) = crate::db::open_for_tests();
    let tx = conn.transaction().unwrap();
    // Group 1: four completed scans, then two failed ones: with 2 kept, the two failed ones and
    // the newest completed one stay.
    let g1: Vec<i64> = (0..4).map(|i| finished_scan(&tx, 1, "completed", &[1, 2, 3], i)).collect();
    let failed: Vec<i64> = (4..6).map(|i| finished_scan(&tx, 1, "failed", &[1], i)).collect();
    // Group 2: three completed scans, the newest a scheduled one not announced yet.
    let g2: Vec<i64> = (0..3).map(|i| finished_scan(&tx, 2, "completed", &[5, 6], 10 + i)).collect();
    mark_scheduled(&tx, g2[2]).unwrap();
    // Group 3: a live scan and one finished one.
    let g3 = finished_scan(&tx, 3, "completed", &[7], 20);
    let (live, _) = queue_scan(&tx, 3, "G", 1, "me", None, 21).unwrap();

    assert_eq!(prunable_scans(&tx, 2, true, 100).unwrap(), [g1[0], g1[1], g1[2]], "the webhook waits for group 2");
    assert_eq!(prunable_scans(&tx, 2, false, 100).unwrap(), [g1[0], g1[1], g1[2], g2[0]], "no webhook: nothing waits");
    assert_eq!(prunable_scans(&tx, 2, false, 2).unwrap(), [g1[0], g1[1]], "at most a limit, the oldest first");
    assert!(!prunable_scans(&tx, 2, false, 100).unwrap().contains(&g3), "{g3} is the newest completed of group 3");
    assert!(!prunable_scans(&tx, 1, false, 100).unwrap().contains(&live.id), "a live scan stays");

    // The members go in batches, then the emptied scan; a scan with members left is not deleted.
    let id = g1[0];
    assert!(!delete_emptied_scan(&tx, id).unwrap(), "members left: the scan stays");
    assert_eq!(prune_scan_members(&tx, id, 2).unwrap(), 2, "at most a batch");
    assert_eq!(prune_scan_members(&tx, id, 2).unwrap(), 1);
    assert_eq!(prune_scan_members(&tx, id, 2).unwrap(), 0);
    assert!(delete_emptied_scan(&tx, id).unwrap());
    assert_eq!(scan(&tx, id).unwrap(), None);
    assert!(!delete_emptied_scan(&tx, live.id).unwrap(), "a live scan is never deleted");
    assert_eq!((members_of(&tx, g1[1]), members_of(&tx, g1[3]), members_of(&tx, failed[1])), (3, 3, 1));

    // What the announcement compares still answers: group 2's newest scan against the one before.
    let newest = scan(&tx, g2[2]).unwrap().unwrap();
    assert!(new_members(&tx, &newest).unwrap().compared);
    let plan: String = tx
        .query_row("EXPLAIN QUERY PLAN SELECT user_id FROM scan_members WHERE scan_id = 1 LIMIT 2", [], |r| r.get(3))
        .unwrap();
    assert!(plan.contains("PRIMARY KEY (scan_id=?)"), "{plan}");
}

#[test]
fn closed_reports_go_after_their_window_open_ones_stay() {
    let (_dir, mut conn) = crate::db::open_for_tests();
    let tx = conn.transaction().unwrap();
    let new_report = NewReport {
        reporter_username: "a",
        target_username: "t",
        reason: "cheating",
        description: "d",
        priority: "low",
        key_id: None,
    };
    let ids: Vec<i64> = (0..4).map(|n| add_report(&tx, &new_report, n).unwrap()).collect();
    set_report_state(&tx, ids[0], "resolved", None, 100).unwrap();
    set_report_state(&tx, ids[1], "dismissed", None, 110).unwrap();
    set_report_state(&tx, ids[2], "resolved", None, 500).unwrap();
    assert_eq!(prune_closed_reports(&tx, 200, 1).unwrap(), 1, "at most a batch");
    assert_eq!(prune_closed_reports(&tx, 200, 1).unwrap(), 1);
    assert_eq!(prune_closed_reports(&tx, 200, 1).unwrap(), 0, "closed at 500: within the window");
    assert!(report(&tx, ids[0]).unwrap().is_none() && report(&tx, ids[1]).unwrap().is_none());
    assert!(report(&tx, ids[2]).unwrap().is_some() && report(&tx, ids[3]).unwrap().is_some(), "open reports stay");
    let plan: String = tx
        .query_row(
            "EXPLAIN QUERY PLAN SELECT id FROM abuse_reports WHERE resolved_at IS NOT NULL AND resolved_at < 5 ORDER BY resolved_at LIMIT 1",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("abuse_reports_closed"), "{plan}");
}
