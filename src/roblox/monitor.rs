//! The badge monitor: one background poller snapshots every tracked badge, keeps the history in
//! SQLite and the answer of `GET /api/badge-monitor` in memory. When Roblox fails, the last
//! figures stay, marked `stale` with their time; after a restart the stored figures are served
//! at once.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::classify::{Difficulty, Rarity};
use super::store::{self, BadgeRow, PolledDay};
use super::{Priority, Roblox, budgets};
use crate::db::{now_ms, rfc3339};
use crate::http::cached::CachedJson;

const DAY_MS: i64 = 86_400_000;
/// Days of the monitor's chart, today included.
const HISTORY_DAYS: i64 = 7;
/// Days the monitor holds in memory: the chart's and the one before, where the weekly average starts.
const HELD_DAYS: i64 = HISTORY_DAYS + 1;

/// `badges/v1/badges/{id}` as Roblox sends it.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BadgeInfo {
    pub id: u64,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub icon_image_id: u64,
    pub statistics: BadgeStatistics,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BadgeStatistics {
    #[serde(default)]
    pub past_day_awarded_count: i64,
    #[serde(default)]
    pub awarded_count: i64,
    /// A 0-1 fraction despite the name.
    #[serde(default)]
    pub win_rate_percentage: f64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct DailyStats {
    /// Awarded in the last 24 hours (Roblox's statistics).
    pub today: i64,
    /// Awarded per day over about the last 7 days: from the last poll of the day 7 days ago (or
    /// the oldest day stored) to the latest poll (Roblox's 24-hour figure until those span a day).
    pub week_average: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct HistoryPoint {
    /// UTC day, YYYY-MM-DD.
    #[schema(format = Date)]
    pub date: String,
    /// Total awarded at that day's last snapshot.
    pub awarded_count: i64,
    /// Awarded in the 24 hours before that snapshot.
    pub past_day: i64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct MonitoredBadge {
    pub badge_id: u64,
    pub name: String,
    pub description: String,
    /// Roblox's icon (thumbnails API); null when it had none to give.
    pub image_url: Option<String>,
    /// Two alternative pictures to try in order when `imageUrl` fails to load: Roblox's
    /// thumbnails of the badge's icon image asset (150 and 420 px). Empty when Roblox gave none.
    pub image_fallbacks: Vec<String>,
    /// The site's rarity level from the win rate: impossible (up to 1 %), insane (up to 5 %),
    /// extremely hard (up to 10 %), hard (up to 20 %), medium (up to 50 %), easy (above).
    pub rarity: Rarity,
    /// Roblox's own difficulty word for the same win rate.
    pub difficulty: Difficulty,
    /// Percent of the game's players who own it.
    pub win_rate_percentage: f64,
    pub awarded_count: i64,
    pub daily_stats: DailyStats,
    /// One point per day of the last 7 that has a snapshot, oldest first.
    pub history: Vec<HistoryPoint>,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

#[derive(Clone, Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct GlobalStats {
    pub total_awarded: i64,
    /// Name of the most awarded badge.
    pub most_popular: Option<String>,
    pub most_popular_badge_id: Option<u64>,
    /// Name of the badge with the lowest win rate.
    pub rarest: Option<String>,
    pub rarest_badge_id: Option<u64>,
}

/// The body of `GET /api/badge-monitor`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct BadgeMonitorAnswer {
    pub success: bool,
    pub badges: Vec<MonitoredBadge>,
    /// Badge ids in site.toml `[badges] tracked`.
    pub total_tracked: usize,
    pub global_stats: GlobalStats,
    /// When these figures were fetched from Roblox (null: never yet).
    #[schema(format = DateTime)]
    pub last_updated: Option<String>,
    /// True when the figures are older than two poll intervals (Roblox failing or unreachable).
    pub stale: bool,
    /// Why the last poll failed, while stale.
    pub error: Option<String>,
    pub poll_interval_secs: u64,
}

struct Figures {
    /// The badges shown, in order: `[badges] tracked`, or the universe's badges.
    ids: Vec<u64>,
    rows: Vec<BadgeRow>,
    /// Each badge's last [`HELD_DAYS`] days, as in `badge_days` (its chart and weekly average).
    /// Read once at start; each poll then updates its day here as it writes it, so a poll reads
    /// nothing back.
    days: HashMap<u64, Vec<PolledDay>>,
    last_success_ms: Option<i64>,
    error: Option<String>,
}

pub struct Monitor {
    pub json: CachedJson,
    figures: Mutex<Figures>,
}

impl Monitor {
    pub fn new(_tracked: usize) -> Self {
        Self {
            json: CachedJson::new(&()),
            figures: Mutex::new(Figures {
                ids: Vec::new(),
                rows: Vec::new(),
                days: HashMap::new(),
                last_success_ms: None,
                error: None,
            }),
        }
    }
}

/// At most this many pages of a universe's badges per poll.
const MAX_UNIVERSE_PAGES: usize = 10;

/// Builds the answer from rows and their days.
pub fn answer(
    tracked: &[u64],
    rows: &[BadgeRow],
    days: &HashMap<u64, Vec<PolledDay>>,
    last_success_ms: Option<i64>,
    error: Option<&str>,
    interval_secs: u64,
    now: i64,
) -> BadgeMonitorAnswer {
    let chart_from = store::utc_day(now - (HISTORY_DAYS - 1) * DAY_MS);
    let average_from = store::utc_day(now - HISTORY_DAYS * DAY_MS);
    let mut badges = Vec::new();
    for id in tracked {
        let Some(r) = rows.iter().find(|r| r.badge_id == *id) else { continue };
        let held = days.get(id).map(Vec::as_slice).unwrap_or(&[]);
        let week: Vec<&PolledDay> = held.iter().filter(|d| d.point.date >= average_from).collect();
        badges.push(MonitoredBadge {
            badge_id: r.badge_id,
            name: r.name.clone(),
            description: r.description.clone(),
            image_url: r.image_url.clone(),
            image_fallbacks: r.image_fallbacks.clone(),
            rarity: Difficulty::of_win_rate(r.win_rate).rarity(),
            difficulty: Difficulty::of_win_rate(r.win_rate),
            win_rate_percentage: (r.win_rate * 10_000.0).round() / 100.0,
            awarded_count: r.awarded_count,
            daily_stats: DailyStats { today: r.past_day, week_average: week_average(&week, r.past_day) },
            history: held.iter().filter(|d| d.point.date >= chart_from).map(|d| d.point.clone()).collect(),
            updated_at: rfc3339(r.updated_at),
        });
    }
    let most_popular = badges.iter().max_by_key(|b| b.awarded_count);
    let rarest = badges.iter().min_by(|a, b| a.win_rate_percentage.total_cmp(&b.win_rate_percentage));
    let global_stats = GlobalStats {
        total_awarded: badges.iter().map(|b| b.awarded_count).sum(),
        most_popular: most_popular.map(|b| b.name.clone()),
        most_popular_badge_id: most_popular.map(|b| b.badge_id),
        rarest: rarest.map(|b| b.name.clone()),
        rarest_badge_id: rarest.map(|b| b.badge_id),
    };
    let updated = last_success_ms.or_else(|| rows.iter().map(|r| r.updated_at).max());
    let stale = !tracked.is_empty()
        && (error.is_some() || updated.is_none_or(|t| now - t > 2 * interval_secs as i64 * 1000 + 5_000));
    BadgeMonitorAnswer {
        success: true,
        total_tracked: tracked.len(),
        badges,
        global_stats,
        last_updated: updated.map(rfc3339),
        stale,
        error: if stale { error.map(str::to_string) } else { None },
        poll_interval_secs: interval_secs,
    }
}

/// Per day: the total awarded between the first and the last of these days' polls divided by
/// the days between them; until they span a day, Roblox's own 24-hour figure.
fn week_average(days: &[&PolledDay], past_day: i64) -> i64 {
    match (days.first(), days.last()) {
        (Some(first), Some(last)) if last.taken_at - first.taken_at >= DAY_MS => {
            let span = (last.taken_at - first.taken_at) as f64 / DAY_MS as f64;
            ((last.point.awarded_count - first.point.awarded_count).max(0) as f64 / span).round() as i64
        }
        _ => past_day,
    }
}

/// Puts a poll's figures into the held days as `record_day` put them into `badge_days` (the
/// day's last poll wins) and drops the days the monitor no longer shows.
fn hold_poll(days: &mut HashMap<u64, Vec<PolledDay>>, rows: &[BadgeRow], now: i64) {
    let oldest = store::utc_day(now - HISTORY_DAYS * DAY_MS);
    for r in rows {
        let polled = PolledDay {
            taken_at: r.updated_at,
            point: HistoryPoint {
                date: store::utc_day(r.updated_at),
                awarded_count: r.awarded_count,
                past_day: r.past_day,
            },
        };
        let held = days.entry(r.badge_id).or_default();
        match held.iter_mut().find(|d| d.point.date == polled.point.date) {
            Some(day) if day.taken_at <= polled.taken_at => *day = polled,
            Some(_) => {}
            None => held.push(polled),
        }
        held.retain(|d| d.point.date >= oldest);
    }
}

impl Roblox {
    fn publish(&self, f: &Figures) {
        let a = answer(
            &f.ids,
            &f.rows,
            &f.days,
            f.last_success_ms,
            f.error.as_deref(),
            self.config.poll.badge_monitor_secs,
            now_ms(),
        );
        self.monitor.json.set(&a);
    }

    /// The badges the monitor shows, in its order, with their names (the history's badges).
    pub fn monitored_badges(&self) -> Vec<(u64, String)> {
        let f = self.monitor.figures.lock().unwrap_or_else(|p| p.into_inner());
        f.ids
            .iter()
            .filter_map(|id| f.rows.iter().find(|r| r.badge_id == *id).map(|r| (r.badge_id, r.name.clone())))
            .collect()
    }

    /// Serves the stored figures (called at start, before the server listens: a restart
    /// answers with the last figures at once).
    pub fn load_stored_badges(&self) {
        let tracked = self.config.badges.tracked.clone();
        let universe = self.config.badges.universe.is_some();
        // A few rows per badge: its latest figures and its last HELD_DAYS days.
        let since_day = store::utc_day(now_ms() - (HELD_DAYS - 1) * DAY_MS);
        let loaded = self.db.read_blocking(move |c| {
            let ids = if tracked.is_empty() && universe { store::all_badge_ids(c)? } else { tracked };
            let rows = store::badges(c, &ids)?;
            let mut days = HashMap::new();
            for r in &rows {
                days.insert(r.badge_id, store::polled_days(c, r.badge_id, &since_day)?);
            }
            Ok((ids, rows, days))
        });
        let mut f = self.monitor.figures.lock().unwrap_or_else(|p| p.into_inner());
        match loaded {
            Ok((ids, rows, days)) => {
                f.ids = ids;
                f.last_success_ms = rows.iter().map(|r| r.updated_at).max();
                f.rows = rows;
                f.days = days;
            }
            Err(e) => tracing::warn!("stored badge figures not read: {e}"),
        }
        self.publish(&f);
    }

    /// One poll: every tracked badge's statistics and icon, stored and published. On failure the
    /// last figures stay, marked stale with the reason.
    pub async fn poll_badges(&self) -> Result<usize, String> {
        let result = self.fetch_badges().await;
        let now = now_ms();
        let outcome = match result {
            Ok(mut rows) => {
                {
                    let f = self.monitor.figures.lock().unwrap_or_else(|p| p.into_inner());
                    for r in rows.iter_mut().filter(|r| r.image_url.is_none()) {
                        r.image_url =
                            f.rows.iter().find(|o| o.badge_id == r.badge_id).and_then(|o| o.image_url.clone());
                    }
                }
                // The write only writes (a row per badge in badge_info and badge_days); what the
                // answer needs besides is held in memory, and a badge the monitor did not hold
                // yet (new in the universe, or back in `tracked`) has its days read afterwards.
                let to_save = rows.clone();
                let saved = self.db.write(move |tx| store::save_poll(tx, &to_save)).await;
                let unheld: Vec<u64> = {
                    let f = self.monitor.figures.lock().unwrap_or_else(|p| p.into_inner());
                    rows.iter().map(|r| r.badge_id).filter(|id| !f.days.contains_key(id)).collect()
                };
                let since_day = store::utc_day(now - (HELD_DAYS - 1) * DAY_MS);
                let read_back = match (&saved, unheld.is_empty()) {
                    (Ok(()), false) => self
                        .db
                        .read(move |c| {
                            unheld.iter().map(|id| Ok((*id, store::polled_days(c, *id, &since_day)?))).collect()
                        })
                        .await
                        .unwrap_or_else(|e: crate::error::ApiError| {
                            tracing::warn!("badge days not read: {e}");
                            Vec::new()
                        }),
                    _ => Vec::new(),
                };
                let mut f = self.monitor.figures.lock().unwrap_or_else(|p| p.into_inner());
                match saved {
                    Ok(()) => {
                        f.days.extend(read_back);
                        hold_poll(&mut f.days, &rows, now);
                        let n = rows.len();
                        f.ids = if self.config.badges.tracked.is_empty() {
                            rows.iter().map(|r| r.badge_id).collect()
                        } else {
                            self.config.badges.tracked.clone()
                        };
                        f.rows = rows;
                        f.last_success_ms = Some(now);
                        f.error = None;
                        Ok(n)
                    }
                    Err(e) => {
                        f.error = Some(format!("figures not saved: {e}"));
                        Err(format!("badge figures not saved: {e}"))
                    }
                }
            }
            Err(e) => {
                let mut f = self.monitor.figures.lock().unwrap_or_else(|p| p.into_inner());
                f.error = Some(e.clone());
                Err(e)
            }
        };
        let f = self.monitor.figures.lock().unwrap_or_else(|p| p.into_inner());
        self.publish(&f);
        outcome
    }

    /// The figures of the tracked badges (in `tracked` order), or of every badge of the universe.
    async fn fetch_badges(&self) -> Result<Vec<BadgeRow>, String> {
        let tracked = &self.config.badges.tracked;
        let mut icon_image_ids: HashMap<u64, u64> = HashMap::new();
        let mut row = |info: BadgeInfo| {
            icon_image_ids.insert(info.id, info.icon_image_id);
            BadgeRow {
                badge_id: info.id,
                name: info.name,
                description: info.description.unwrap_or_default(),
                image_url: None,
                image_fallbacks: Vec::new(),
                win_rate: info.statistics.win_rate_percentage,
                awarded_count: info.statistics.awarded_count,
                past_day: info.statistics.past_day_awarded_count,
                updated_at: now_ms(),
            }
        };
        let mut found: Vec<BadgeRow> = Vec::new();
        if let Some(universe) = self.config.badges.universe {
            let mut cursor: Option<String> = None;
            for _ in 0..MAX_UNIVERSE_PAGES {
                let page = self
                    .universe_badges_page(universe, cursor.as_deref(), Priority::Background)
                    .await
                    .map_err(|e| e.to_string())?;
                found.extend(
                    page.badges.into_iter().filter(|b| tracked.is_empty() || tracked.contains(&b.id)).map(&mut row),
                );
                match page.next_cursor {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
        }
        let order: Vec<u64> =
            if tracked.is_empty() { found.iter().map(|r| r.badge_id).collect() } else { tracked.clone() };
        let mut rows = Vec::new();
        let mut missing = Vec::new();
        for id in &order {
            if let Some(pos) = found.iter().position(|r| r.badge_id == *id) {
                rows.push(found.swap_remove(pos));
                continue;
            }
            match self.badge(*id, Priority::Background).await {
                Ok(info) => rows.push(row(info)),
                Err(super::RobloxError::BadAnswer(why)) if why.starts_with("Roblox has no badge") => missing.push(*id),
                Err(e) => return Err(e.to_string()),
            }
        }
        if !missing.is_empty() {
            tracing::warn!("badge monitor: Roblox has no badge {missing:?} (check [badges] tracked)");
        }
        for chunk in order.chunks(100) {
            let ids = chunk.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            let query = [
                ("badgeIds", ids),
                ("size", "150x150".to_string()),
                ("format", "Png".to_string()),
                ("isCircular", "false".to_string()),
            ];
            let icons = self.thumbnails(&budgets::BADGE_ICONS, "v1/badges/icons", &query, Priority::Background).await;
            for r in rows.iter_mut() {
                if let Some(url) = icons.get(&r.badge_id) {
                    r.image_url = Some(url.clone());
                }
            }
        }
        self.add_image_fallbacks(&mut rows, &icon_image_ids).await;
        Ok(rows)
    }

    /// The fallback pictures: Roblox's thumbnails of each badge's icon image asset at two sizes.
    /// They do not change with the figures, so each badge's are asked once and then carried over.
    async fn add_image_fallbacks(&self, rows: &mut [BadgeRow], icon_image_ids: &HashMap<u64, u64>) {
        {
            let f = self.monitor.figures.lock().unwrap_or_else(|p| p.into_inner());
            for r in rows.iter_mut() {
                if let Some(known) = f.rows.iter().find(|o| o.badge_id == r.badge_id && !o.image_fallbacks.is_empty()) {
                    r.image_fallbacks = known.image_fallbacks.clone();
                }
            }
        }
        let wanted: Vec<u64> = rows
            .iter()
            .filter(|r| r.image_fallbacks.is_empty())
            .filter_map(|r| icon_image_ids.get(&r.badge_id).copied())
            .filter(|&asset| asset != 0)
            .collect();
        for chunk in wanted.chunks(100) {
            let ids = chunk.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            for size in ["150x150", "420x420"] {
                let query = [
                    ("assetIds", ids.clone()),
                    ("size", size.to_string()),
                    ("format", "Png".to_string()),
                    ("isCircular", "false".to_string()),
                ];
                let urls = self.thumbnails(&budgets::ASSET_THUMBNAILS, "v1/assets", &query, Priority::Background).await;
                for r in rows.iter_mut() {
                    let url = icon_image_ids.get(&r.badge_id).and_then(|asset| urls.get(asset));
                    if let Some(url) =
                        url.filter(|u| r.image_url.as_ref() != Some(*u) && !r.image_fallbacks.contains(u))
                    {
                        r.image_fallbacks.push(url.clone());
                    }
                }
            }
        }
    }
}

/// The poller: serves the stored figures at once, then polls every `[poll] badge_monitor_secs`.
pub async fn run(roblox: Roblox, job: crate::jobs::JobHandle) {
    if roblox.config.badges.tracked.is_empty() && roblox.config.badges.universe.is_none() {
        return;
    }
    let mut tick = tokio::time::interval(Duration::from_secs(roblox.config.poll.badge_monitor_secs));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        job.started();
        if let Err(e) = job.report(roblox.poll_badges().await) {
            tracing::warn!("badge monitor poll failed: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, count: i64, rate: f64) -> BadgeRow {
        BadgeRow {
            badge_id: id,
            name: format!("B{id}"),
            description: String::new(),
            image_url: None,
            image_fallbacks: Vec::new(),
            win_rate: rate,
            awarded_count: count,
            past_day: 40,
            updated_at: 10 * DAY_MS,
        }
    }

    fn day(date: &str, taken_at: i64, total: i64, past_day: i64) -> PolledDay {
        PolledDay { taken_at, point: HistoryPoint { date: date.into(), awarded_count: total, past_day } }
    }

    #[test]
    fn the_answer_computes_totals_averages_history_and_staleness() {
        let rows = vec![row(1, 1000, 0.5), row(2, 50, 0.004)];
        let days = HashMap::from([(
            1,
            vec![
                day("1970-01-09", 8 * DAY_MS, 800, 90),
                day("1970-01-10", 9 * DAY_MS, 900, 100),
                day("1970-01-11", 10 * DAY_MS, 1000, 40),
            ],
        )]);
        let a = answer(&[1, 2, 3], &rows, &days, Some(10 * DAY_MS), None, 60, 10 * DAY_MS + 1000);
        assert_eq!((a.total_tracked, a.badges.len(), a.global_stats.total_awarded), (3, 2, 1050));
        assert_eq!(a.global_stats.most_popular.as_deref(), Some("B1"));
        assert_eq!(a.global_stats.rarest.as_deref(), Some("B2"));
        assert_eq!(a.badges[0].daily_stats.week_average, 100, "200 over 2 days");
        assert_eq!(a.badges[1].daily_stats.week_average, 40, "no history yet: Roblox's 24 h figure");
        assert_eq!((a.badges[0].rarity, a.badges[1].rarity), (Rarity::Medium, Rarity::Impossible));
        assert_eq!((a.badges[0].difficulty, a.badges[1].difficulty), (Difficulty::Moderate, Difficulty::Impossible));
        let json = serde_json::to_value(&a.badges[0]).unwrap();
        assert_eq!(
            (&json["rarity"], &json["difficulty"]),
            (&serde_json::json!("medium"), &serde_json::json!("Moderate"))
        );
        assert_eq!(a.badges[0].history.len(), 3);
        assert!(a.badges[1].history.is_empty(), "no days stored: no chart");
        assert!(!a.stale);
        let later = answer(&[1, 2], &rows, &days, Some(10 * DAY_MS), Some("Roblox down"), 60, 10 * DAY_MS + 1000);
        assert!(later.stale && later.error.as_deref() == Some("Roblox down"));
        let old = answer(&[1], &rows, &days, Some(10 * DAY_MS), None, 60, 11 * DAY_MS);
        assert!(old.stale, "figures a day old are stale");
    }

    #[test]
    fn the_chart_shows_seven_days_and_the_average_starts_on_the_day_before() {
        let now = 20 * DAY_MS + 3_600_000;
        // Nine days, the last poll of each at noon, 100 awarded a day.
        let held: Vec<PolledDay> =
            (12..=20).map(|d| day(&store::utc_day(d * DAY_MS), d * DAY_MS + DAY_MS / 2, 100 * d, 100)).collect();
        let rows = vec![BadgeRow { updated_at: now, ..row(1, 2000, 0.5) }];
        let a = answer(&[1], &rows, &HashMap::from([(1, held)]), Some(now), None, 60, now);
        let dates: Vec<&str> = a.badges[0].history.iter().map(|p| p.date.as_str()).collect();
        assert_eq!(dates.len(), 7, "{dates:?}");
        assert_eq!((dates[0], dates[6]), (store::utc_day(14 * DAY_MS).as_str(), store::utc_day(20 * DAY_MS).as_str()));
        assert_eq!(a.badges[0].daily_stats.week_average, 100, "from day 13's last poll to day 20's");
    }

    #[test]
    fn a_poll_replaces_its_day_appends_a_new_one_and_drops_days_out_of_the_week() {
        let mut days = HashMap::from([(
            1,
            vec![
                day(&store::utc_day(2 * DAY_MS), 2 * DAY_MS + 5, 10, 1),
                day(&store::utc_day(9 * DAY_MS), 9 * DAY_MS + 5, 20, 2),
            ],
        )]);
        let poll = |at: i64, count: i64| vec![BadgeRow { updated_at: at, ..row(1, count, 0.5) }];
        hold_poll(&mut days, &poll(9 * DAY_MS + 50, 25), 9 * DAY_MS + 50);
        assert_eq!(days[&1].len(), 2, "day 2 is 7 days before day 9: still held");
        assert_eq!(days[&1][1].point.awarded_count, 25, "the day's last poll wins");
        hold_poll(&mut days, &poll(9 * DAY_MS + 40, 24), 9 * DAY_MS + 50);
        assert_eq!(days[&1][1].point.awarded_count, 25, "an earlier poll does not");
        hold_poll(&mut days, &poll(10 * DAY_MS + 1, 30), 10 * DAY_MS + 1);
        let held: Vec<i64> = days[&1].iter().map(|d| d.point.awarded_count).collect();
        assert_eq!(held, [25, 30], "day 2 left the week; day 10 appended");
        hold_poll(&mut days, &[BadgeRow { updated_at: 10 * DAY_MS + 2, ..row(2, 5, 0.5) }], 10 * DAY_MS + 2);
        assert_eq!(days[&2].len(), 1, "a badge new to the monitor starts its days");
    }
}
