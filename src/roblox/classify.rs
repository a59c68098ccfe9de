//! Pure rules: Roblox's username rules, the classification from site.toml, badge rarity bands.

use serde::Serialize;
use utoipa::ToSchema;

use super::settings::{Classification, Generation, GenerationCode};
use super::{Awards, Profile};

/// Roblox's username rules: 3-20 characters, ASCII letters, digits and at most one underscore,
/// which is neither first nor last. Returns the problem as a sentence.
pub fn check_username(name: &str) -> Result<(), String> {
    let n = name.chars().count();
    if !(3..=20).contains(&n) {
        return Err("Roblox usernames are 3 to 20 characters long.".into());
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err("Roblox usernames use only letters, digits and one underscore.".into());
    }
    if name.matches('_').count() > 1 {
        return Err("Roblox usernames have at most one underscore.".into());
    }
    if name.starts_with('_') || name.ends_with('_') {
        return Err("A Roblox username cannot start or end with an underscore.".into());
    }
    Ok(())
}

/// One fact a classification rests on.
#[derive(Clone, Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct Evidence {
    /// `joinDate`, `elcBadge`, `noElcBadges` or `awardDatesUnavailable`.
    pub kind: String,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub badge_id: Option<u64>,
}

/// The outcome of the rules for one player.
#[derive(Clone, Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct Verdict {
    pub generation: GenerationCode,
    /// The era's name from the site's settings, shown to people.
    pub generation_label: String,
    pub classification: String,
    pub is_newgen: bool,
    pub is_veteran: bool,
    /// Percent.
    pub confidence: u8,
    pub reason: String,
    pub evidence: Vec<Evidence>,
}

/// `YYYY-MM-DD` of an RFC 3339 time (Roblox's dates carry up to 7 fraction digits).
pub fn day_of(rfc3339: &str) -> String {
    rfc3339
        .parse::<jiff::Timestamp>()
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date().to_string())
        .unwrap_or_else(|_| rfc3339.chars().take(10).collect())
}

/// Whole days from `created` to `now`.
pub fn age_days(created: &str, now: jiff::Timestamp) -> i64 {
    created.parse::<jiff::Timestamp>().map(|c| (now.as_second() - c.as_second()).max(0) / 86_400).unwrap_or(0)
}

fn badge_evidence(b: &crate::roblox::AwardedBadge) -> Evidence {
    Evidence {
        kind: "elcBadge".into(),
        detail: format!("{} awarded {}", b.name, day_of(&b.awarded_date)),
        date: Some(b.awarded_date.clone()),
        badge_id: Some(b.badge_id),
    }
}

fn fill(template: &str, pairs: &[(&str, &str)]) -> String {
    pairs.iter().fold(template.to_string(), |text, (k, v)| text.replace(&format!("{{{k}}}"), v))
}

/// The era of an account that joined on `joined` (`YYYY-MM-DD`): the first whose
/// `joined_before` is later, else the last.
pub fn era_of<'a>(rules: &'a Classification, joined: &str) -> &'a Generation {
    let joined_date: Option<jiff::civil::Date> = joined.parse().ok();
    rules
        .generations
        .iter()
        .find(|g| match (&g.joined_before, joined_date) {
            (Some(before), Some(j)) => before.parse::<jiff::civil::Date>().is_ok_and(|b| j < b),
            (None, _) => true,
            (Some(_), None) => false,
        })
        .unwrap_or_else(|| rules.generations.last().expect("validated: at least one era"))
}

/// Applies the site's rules to a profile and its ELC award dates.
pub fn classify(rules: &Classification, profile: &Profile, awards: &Awards, elc_total: usize) -> Verdict {
    let joined = day_of(&profile.created);
    let era = era_of(rules, &joined);
    let mut evidence = vec![Evidence {
        kind: "joinDate".into(),
        detail: match &era.joined_before {
            Some(b) => format!("Joined {joined}, before {b}: {}", era.name),
            None => format!("Joined {joined}: {}", era.name),
        },
        date: Some(joined.clone()),
        badge_id: None,
    }];
    let total = elc_total.to_string();
    match awards {
        Awards::Known(badges) if badges.len() as u32 >= rules.elc_veteran_min && !badges.is_empty() => {
            let earliest = badges.iter().map(|b| b.awarded_date.as_str()).min().map(day_of).unwrap_or_default();
            evidence.extend(badges.iter().map(badge_evidence));
            let count = badges.len().to_string();
            Verdict {
                generation: era.code,
                generation_label: era.name.clone(),
                classification: rules.elc_classification.clone(),
                is_newgen: false,
                is_veteran: true,
                confidence: rules.confidence_elc,
                reason: fill(
                    &rules.reason_elc,
                    &[
                        ("joined", &joined),
                        ("generation", &era.name),
                        ("count", &count),
                        ("total", &total),
                        ("earliest", &earliest),
                    ],
                ),
                evidence,
            }
        }
        Awards::Known(badges) => {
            evidence.extend(badges.iter().map(badge_evidence));
            if badges.is_empty() {
                evidence.push(Evidence {
                    kind: "noElcBadges".into(),
                    detail: format!("Owns none of the {total} ELC badges"),
                    date: None,
                    badge_id: None,
                });
            }
            Verdict {
                generation: era.code,
                generation_label: era.name.clone(),
                classification: era.classification.clone(),
                is_newgen: era.newgen,
                is_veteran: era.veteran,
                confidence: rules.confidence_no_elc,
                reason: fill(
                    &rules.reason_no_elc,
                    &[
                        ("joined", &joined),
                        ("generation", &era.name),
                        ("count", &badges.len().to_string()),
                        ("total", &total),
                    ],
                ),
                evidence,
            }
        }
        Awards::Unavailable(why) => {
            let why = why.sentence();
            evidence.push(Evidence {
                kind: "awardDatesUnavailable".into(),
                detail: why.clone(),
                date: None,
                badge_id: None,
            });
            Verdict {
                generation: era.code,
                generation_label: era.name.clone(),
                classification: era.classification.clone(),
                is_newgen: era.newgen,
                is_veteran: era.veteran,
                confidence: rules.confidence_join_date_only,
                reason: fill(
                    &rules.reason_join_date_only,
                    &[
                        ("joined", &joined),
                        ("generation", &era.name),
                        ("total", &total),
                        ("why", why.trim_end_matches('.')),
                    ],
                ),
                evidence,
            }
        }
    }
}

/// Roblox's difficulty word for a badge, as its badge pages show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub enum Difficulty {
    Impossible,
    Insane,
    Extreme,
    Hard,
    Challenging,
    Moderate,
    Easy,
    Cakewalk,
    Freebie,
}

/// The site's rarity levels of a badge, rarest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub enum Rarity {
    #[serde(rename = "impossible")]
    Impossible,
    #[serde(rename = "insane")]
    Insane,
    #[serde(rename = "extremely hard")]
    ExtremelyHard,
    #[serde(rename = "hard")]
    Hard,
    #[serde(rename = "medium")]
    Medium,
    #[serde(rename = "easy")]
    Easy,
}

impl Difficulty {
    /// From `winRatePercentage`, a 0-1 fraction despite its name: the first band whose upper
    /// bound (percent) is at least the rate.
    pub fn of_win_rate(win_rate_fraction: f64) -> Self {
        const BANDS: [(f64, Difficulty); 8] = [
            (1.0, Difficulty::Impossible),
            (5.0, Difficulty::Insane),
            (10.0, Difficulty::Extreme),
            (20.0, Difficulty::Hard),
            (30.0, Difficulty::Challenging),
            (50.0, Difficulty::Moderate),
            (70.0, Difficulty::Easy),
            (80.0, Difficulty::Cakewalk),
        ];
        let percent = win_rate_fraction * 100.0;
        BANDS.iter().find(|(upper, _)| percent <= *upper).map_or(Difficulty::Freebie, |(_, d)| *d)
    }

    /// The rarity level of Roblox's word: its four rarest words one to one, the two middle ones
    /// (over 20 to 50 %) medium and the three commonest (over 50 %) easy.
    pub fn rarity(self) -> Rarity {
        match self {
            Self::Impossible => Rarity::Impossible,
            Self::Insane => Rarity::Insane,
            Self::Extreme => Rarity::ExtremelyHard,
            Self::Hard => Rarity::Hard,
            Self::Challenging | Self::Moderate => Rarity::Medium,
            Self::Easy | Self::Cakewalk | Self::Freebie => Rarity::Easy,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roblox::{AwardedBadge, Unavailable};

    #[test]
    fn usernames_follow_robloxs_rules() {
        for ok in ["abc", "Builder_42", "a1b2c3d4e5f6g7h8i9j0", "X_y"] {
            assert!(check_username(ok).is_ok(), "{ok}");
        }
        for bad in ["ab", "a1b2c3d4e5f6g7h8i9j0k", "_abc", "abc_", "a_b_c", "a b", "ab-c", "ümlaut", "", "a;DROP"] {
            assert!(check_username(bad).is_err(), "{bad}");
        }
    }

    fn profile(created: &str) -> Profile {
        Profile {
            id: 1,
            name: "p".into(),
            display_name: "p".into(),
            description: String::new(),
            created: created.into(),
            is_banned: false,
            verified: false,
            source: None,
        }
    }

    #[test]
    fn eras_elc_badges_and_missing_dates_each_decide_with_their_confidence() {
        let rules = Classification::default();
        let old = classify(&rules, &profile("2012-05-01T10:00:00.1234567Z"), &Awards::Known(vec![]), 3);
        assert_eq!(
            (old.generation, old.generation_label.as_str(), old.is_veteran, old.confidence),
            (GenerationCode::Oldgen, "Oldgen", true, 80)
        );
        assert!(
            old.reason.contains("Owns none of the 3 ELC badges") && old.reason.contains("2012-05-01"),
            "{}",
            old.reason
        );
        let new = classify(&rules, &profile("2024-01-01T00:00:00Z"), &Awards::Known(vec![]), 3);
        assert_eq!(
            (new.generation, new.is_newgen, new.classification.as_str()),
            (GenerationCode::Newgen, true, "Newgen")
        );
        let elc = Awards::Known(vec![AwardedBadge {
            badge_id: 9,
            name: "Early".into(),
            description: String::new(),
            awarded_date: "2016-02-03T04:05:06.604064Z".into(),
        }]);
        let vet = classify(&rules, &profile("2024-01-01T00:00:00Z"), &elc, 3);
        assert_eq!((vet.is_veteran, vet.is_newgen, vet.confidence), (true, false, 95));
        assert!(vet.reason.contains("Owns 1 of 3") && vet.reason.contains("2016-02-03"), "{}", vet.reason);
        assert!(vet.evidence.iter().any(|e| e.badge_id == Some(9)));
        let blind =
            classify(&rules, &profile("2019-06-01T00:00:00Z"), &Awards::Unavailable(Unavailable::NeedsCookie), 3);
        assert_eq!((blind.generation, blind.confidence), (GenerationCode::Midgen, 55));
        assert!(blind.reason.contains("unavailable") && blind.reason.contains("cookie"), "{}", blind.reason);
        let edge = classify(&rules, &profile("2017-01-01T00:00:00Z"), &Awards::Known(vec![]), 3);
        assert_eq!(edge.generation, GenerationCode::Midgen, "joined_before is exclusive");
    }

    #[test]
    fn the_api_document_lists_the_generation_codes_and_rarity_levels() {
        let doc = crate::openapi::document();
        let schemas = &doc["components"]["schemas"];
        assert_eq!(schemas["GenerationCode"]["enum"], serde_json::json!(["VETERAN", "OLDGEN", "MIDGEN", "NEWGEN"]));
        assert_eq!(
            schemas["Rarity"]["enum"],
            serde_json::json!(["impossible", "insane", "extremely hard", "hard", "medium", "easy"])
        );
        for schema in ["NewgenCheck", "BotStatus", "QuickCheck", "PlayerEntry"] {
            assert_eq!(
                schemas[schema]["properties"]["generation"]["$ref"], "#/components/schemas/GenerationCode",
                "{schema}"
            );
        }
        assert_eq!(schemas["MonitoredBadge"]["properties"]["rarity"]["$ref"], "#/components/schemas/Rarity");
    }

    #[test]
    fn difficulty_and_rarity_bands() {
        let at = |rate: f64| {
            let d = Difficulty::of_win_rate(rate);
            (serde_json::to_value(d).unwrap(), serde_json::to_value(d.rarity()).unwrap())
        };
        for (rate, difficulty, rarity) in [
            (0.0, "Impossible", "impossible"),
            (0.008, "Impossible", "impossible"),
            (0.01, "Impossible", "impossible"),
            (0.02, "Insane", "insane"),
            (0.07, "Extreme", "extremely hard"),
            (0.15, "Hard", "hard"),
            (0.25, "Challenging", "medium"),
            (0.4, "Moderate", "medium"),
            (0.522, "Easy", "easy"),
            (0.75, "Cakewalk", "easy"),
            (0.95, "Freebie", "easy"),
        ] {
            assert_eq!(at(rate), (serde_json::json!(difficulty), serde_json::json!(rarity)), "{rate}");
        }
    }
}
