//! The Roblox parts of `data/site.toml`: `[badges]`, `[classification]`, `[poll]` and `[roblox]`
//! (documented in data/README.md). All are optional; a site file without them gets no tracked
//! or ELC badges and the generic defaults below.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::budgets::ENDPOINTS;

/// `[badges]`: the game's badge ids.
#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BadgeSettings {
    /// The ELC badges: owning one (with its award date) is the strongest evidence of a veteran.
    #[serde(default)]
    pub elc: Vec<u64>,
    /// The badges the badge monitor follows.
    #[serde(default)]
    pub tracked: Vec<u64>,
    /// The game's universe id: the monitor reads the badges' figures 100 at a time from the
    /// universe's badge list (all of them when `tracked` is empty, else only those).
    #[serde(default)]
    pub universe: Option<u64>,
}

/// The generations the API answers: every era of the site is one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum GenerationCode {
    Veteran,
    Oldgen,
    Midgen,
    Newgen,
}

impl GenerationCode {
    pub const ALL: [GenerationCode; 4] = [Self::Veteran, Self::Oldgen, Self::Midgen, Self::Newgen];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Veteran => "VETERAN",
            Self::Oldgen => "OLDGEN",
            Self::Midgen => "MIDGEN",
            Self::Newgen => "NEWGEN",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// One era of join dates.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct Generation {
    /// The generation badge shown to people, e.g. "Oldgen" (the API's `generationLabel`).
    pub name: String,
    /// What the API answers as `generation` for this era; each code belongs to one era at most.
    pub code: GenerationCode,
    /// Accounts created before this date (YYYY-MM-DD, UTC) belong here; the last era has none.
    #[serde(default)]
    pub joined_before: Option<String>,
    /// The classification of an account of this era when no ELC badge decides it.
    pub classification: String,
    #[serde(default)]
    pub veteran: bool,
    #[serde(default)]
    pub newgen: bool,
}

/// `[classification]`: how a player is classified, with its wording.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct Classification {
    /// Oldest first; every era but the last has `joined_before`, in increasing order.
    pub generations: Vec<Generation>,
    /// Owning at least this many ELC badges makes a player a veteran whatever the join date.
    #[serde(default = "one")]
    pub elc_veteran_min: u32,
    /// The classification of a player the ELC badges make a veteran.
    pub elc_classification: String,
    /// The short name of the early-player badges, as people of the game say it ("ELC").
    #[serde(default = "elc_name")]
    pub elc_name: String,
    /// The same in plain words, for readers who do not know the short name ("early-player"): the
    /// verdict writes "early-player (ELC) badges" once, then "early-player badges".
    #[serde(default = "elc_words")]
    pub elc_words: String,
    /// Confidence (percent) when the ELC badges decided it.
    #[serde(default = "c95")]
    pub confidence_elc: u8,
    /// Confidence when the award dates were read and no ELC badge is owned (join date decides).
    #[serde(default = "c80")]
    pub confidence_no_elc: u8,
    /// Confidence when Roblox did not give the award dates (join date alone).
    #[serde(default = "c55")]
    pub confidence_join_date_only: u8,
    /// Reason templates. Placeholders: {joined} {generation} {count} {total} {earliest} {why}.
    pub reason_elc: String,
    pub reason_no_elc: String,
    pub reason_join_date_only: String,
}

impl Classification {
    /// The era `code` names (None when no era of the site has it).
    pub fn era(&self, code: GenerationCode) -> Option<&Generation> {
        self.generations.iter().find(|g| g.code == code)
    }

    /// The label people see for a generation code: its era's name, or the code itself when no
    /// era has it (a player stored before the site's eras changed).
    pub fn label(&self, code: &str) -> String {
        GenerationCode::parse(code).and_then(|c| self.era(c)).map_or_else(|| code.to_string(), |g| g.name.clone())
    }

    /// A leaderboard's `generation` filter: a code, or (any case) a code or an era's name.
    pub fn parse_filter(&self, text: &str) -> Option<GenerationCode> {
        GenerationCode::ALL
            .into_iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(text))
            .or_else(|| self.generations.iter().find(|g| g.name.eq_ignore_ascii_case(text)).map(|g| g.code))
    }
}

fn one() -> u32 {
    1
}
fn elc_name() -> String {
    "ELC".into()
}
fn elc_words() -> String {
    "early-player".into()
}
fn c95() -> u8 {
    95
}
fn c80() -> u8 {
    80
}
fn c55() -> u8 {
    55
}

impl Default for Classification {
    fn default() -> Self {
        let era = |name: &str, code, before: Option<&str>, classification: &str, veteran, newgen| Generation {
            name: name.into(),
            code,
            joined_before: before.map(str::to_string),
            classification: classification.into(),
            veteran,
            newgen,
        };
        Self {
            generations: vec![
                era("Oldgen", GenerationCode::Oldgen, Some("2017-01-01"), "Veteran", true, false),
                era("Midgen", GenerationCode::Midgen, Some("2021-01-01"), "Regular", false, false),
                era("Newgen", GenerationCode::Newgen, None, "Newgen", false, true),
            ],
            elc_veteran_min: 1,
            elc_classification: "Veteran".into(),
            elc_name: elc_name(),
            elc_words: elc_words(),
            confidence_elc: 95,
            confidence_no_elc: 80,
            confidence_join_date_only: 55,
            reason_elc: "Owns {count} of {total} ELC badges (earliest awarded {earliest}); joined Roblox {joined}.".into(),
            reason_no_elc: "Owns none of the {total} ELC badges; joined Roblox {joined}, a {generation} account.".into(),
            reason_join_date_only: "ELC badges unavailable ({why}); classified by the join date alone: joined Roblox {joined}, a {generation} account.".into(),
        }
    }
}

/// `[poll]`.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct PollSettings {
    /// Seconds between badge monitor polls (at least 1).
    #[serde(default = "sixty")]
    pub badge_monitor_secs: u64,
    /// Seconds between two reads of the Discord update channels (15 or more; default 60).
    #[serde(default = "sixty")]
    pub updates_secs: u64,
    /// Seconds between two reads of the Discord member count (60 or more; default 600).
    #[serde(default = "six_hundred")]
    pub members_secs: u64,
}

fn sixty() -> u64 {
    60
}

fn six_hundred() -> u64 {
    600
}

impl Default for PollSettings {
    fn default() -> Self {
        Self { badge_monitor_secs: sixty(), updates_secs: sixty(), members_secs: six_hundred() }
    }
}

/// `[roblox]`: budgets and cache lifetimes (not served).
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RobloxSettings {
    /// Calls per 60 s per endpoint (`users/v1/users/{id}` = 24, ...); unnamed endpoints keep
    /// their default, set under the reference's probed limits.
    #[serde(default)]
    pub budgets: BTreeMap<String, u32>,
    /// The share of each budget background work (group scans, the badge poller) may use: 0-1.
    #[serde(default = "half")]
    pub background_share: f64,
    #[serde(default = "six")]
    pub profile_ttl_hours: u64,
    #[serde(default = "three")]
    pub awards_ttl_days: u64,
    #[serde(default = "twelve")]
    pub thumbnail_ttl_hours: u64,
    /// Entries of each in-memory cache (profiles, award dates, thumbnails, reports).
    #[serde(default = "ten_thousand")]
    pub cache_entries: usize,
    /// Budgets above Roblox's probed per-address limits are refused unless this is true: only for
    /// a `FANHUB_ROBLOX_API` proxy that spreads calls over many addresses, whose limits are its own.
    #[serde(default)]
    pub budgets_above_probed_limits: bool,
}

fn half() -> f64 {
    0.5
}
fn six() -> u64 {
    6
}
fn three() -> u64 {
    3
}
fn twelve() -> u64 {
    12
}
fn ten_thousand() -> usize {
    10_000
}

impl Default for RobloxSettings {
    fn default() -> Self {
        Self {
            budgets: BTreeMap::new(),
            background_share: 0.5,
            profile_ttl_hours: 6,
            awards_ttl_days: 3,
            thumbnail_ttl_hours: 12,
            cache_entries: 10_000,
            budgets_above_probed_limits: false,
        }
    }
}

/// Checks the four tables; the message names the key.
pub fn validate(
    badges: &BadgeSettings,
    classification: &Classification,
    poll: &PollSettings,
    roblox: &RobloxSettings,
) -> Result<(), String> {
    if badges.elc.len() > 100 {
        return Err("[badges] elc: at most 100 ids (one award-dates call)".into());
    }
    if badges.tracked.len() > 200 {
        return Err("[badges] tracked: at most 200 ids".into());
    }
    if badges.elc.iter().chain(&badges.tracked).chain(&badges.universe).any(|id| *id == 0) {
        return Err("[badges] ids are positive numbers".into());
    }
    let gens = &classification.generations;
    if gens.is_empty() {
        return Err("[classification] needs at least one [[classification.generations]] entry".into());
    }
    let mut previous: Option<jiff::civil::Date> = None;
    for (i, g) in gens.iter().enumerate() {
        let last = i + 1 == gens.len();
        match (&g.joined_before, last) {
            (None, true) => {}
            (None, false) => {
                return Err(format!(
                    "[[classification.generations]] {:?} needs joined_before (only the last era has none)",
                    g.name
                ));
            }
            (Some(_), true) => {
                return Err(format!(
                    "[[classification.generations]] the last era {:?} takes everyone after the others: remove its joined_before",
                    g.name
                ));
            }
            (Some(d), false) => {
                let date: jiff::civil::Date = d.parse().map_err(|_| {
                    format!("[[classification.generations]] joined_before {d:?} is not a date like 2017-01-01")
                })?;
                if previous.is_some_and(|p| p >= date) {
                    return Err(
                        "[[classification.generations]] joined_before dates must increase, oldest era first".into()
                    );
                }
                previous = Some(date);
            }
        }
        if g.name.trim().is_empty() || g.classification.trim().is_empty() {
            return Err("[[classification.generations]] every era needs a name and a classification".into());
        }
        if gens[..i].iter().any(|o| o.code == g.code) {
            return Err(format!(
                "[[classification.generations]] code {:?} of {:?} is already another era's: each of VETERAN, OLDGEN, MIDGEN, NEWGEN names one era at most",
                g.code.as_str(),
                g.name
            ));
        }
        // A leaderboard filter names an era by its code or its name, in any case: neither may be ambiguous.
        if gens[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&g.name))
            || GenerationCode::ALL.iter().any(|c| *c != g.code && c.as_str().eq_ignore_ascii_case(&g.name))
        {
            return Err(format!("[[classification.generations]] name {:?} is another era's name or code", g.name));
        }
    }
    for (key, c) in [
        ("confidence_elc", classification.confidence_elc),
        ("confidence_no_elc", classification.confidence_no_elc),
        ("confidence_join_date_only", classification.confidence_join_date_only),
    ] {
        if c > 100 {
            return Err(format!("[classification] {key} is a percentage (0-100)"));
        }
    }
    if poll.badge_monitor_secs == 0 {
        return Err("[poll] badge_monitor_secs must be at least 1".into());
    }
    if !(0.0..=1.0).contains(&roblox.background_share) {
        return Err("[roblox] background_share is a fraction from 0 to 1".into());
    }
    for (name, budget) in &roblox.budgets {
        let Some(endpoint) = ENDPOINTS.iter().find(|e| &e.name() == name) else {
            let known = ENDPOINTS.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ");
            return Err(format!("[roblox.budgets] {name:?} is not a Roblox endpoint this site calls ({known})"));
        };
        if *budget == 0 {
            return Err(format!("[roblox.budgets] {name:?} = 0: a budget is at least 1 call per minute"));
        }
        if *budget > endpoint.probed_limit && !roblox.budgets_above_probed_limits {
            return Err(format!(
                "[roblox.budgets] {name:?} = {budget}: keep it from 1 to Roblox's probed limit of {} per minute (or set budgets_above_probed_limits = true behind a proxy with limits of its own)",
                endpoint.probed_limit
            ));
        }
    }
    if roblox.cache_entries < 10 || roblox.profile_ttl_hours == 0 || roblox.awards_ttl_days == 0 {
        return Err("[roblox] cache_entries >= 10 and the TTLs >= 1".into());
    }
    Ok(())
}
