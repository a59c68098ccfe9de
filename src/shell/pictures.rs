//! `GET /api/players/{username}/card.png`: a player's card picture (`picture::draw`), for a
//! player the site checked within `[roblox] profile_ttl_hours` (`cards::LinkCards::player`);
//! 404 for any other name, which never reaches Roblox, and 400 for a name Roblox could not hold.
//!
//! A picture is named by a hash of everything it shows (`key_of`), so a new check that changes
//! the verdict makes a new picture and an old one is never served for it. Pictures are kept like
//! the shell's page variants, in bounded numbers: the last `[link_cards] pictures_in_memory` in
//! memory and the last `pictures_on_disk` in `card-cache/` of the data dir (kept across
//! restarts, not backed up); past those the oldest goes. Drawing runs with the other CPU-heavy
//! work (`HeavyWork`).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};

use super::cards::LinkCards;
use super::picture::{self, PictureText};
use crate::error::ApiError;
use crate::heavy::HeavyWork;
use crate::http::cached::{Caching, if_none_match_hits};
use crate::http::extract::Path;
use crate::roblox::cache::Bounded;
use crate::site::SiteSettings;

/// The folder of the data dir that keeps drawn pictures.
pub const CACHE_DIR: &str = "card-cache";

/// Changes with the drawing, so pictures drawn by an older release are not served as current.
const DRAWING_VERSION: &str = "1";

/// The header that says where a picture came from: `memory`, `disk` or `drawn`.
pub const SOURCE_HEADER: &str = "x-fanhub-card";

/// The key of a picture: a hash of everything it shows, 32 hex digits.
pub fn key_of(text: &PictureText) -> String {
    let mut hash = Sha256::new();
    for part in [DRAWING_VERSION, &text.site_name, &text.username, &text.classification, &text.accent, &text.on_accent]
        .into_iter()
        .chain(text.lines.iter().map(String::as_str))
    {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hex::encode(&hash.finalize()[..16])
}

fn is_key(name: &str) -> bool {
    name.len() == 32 && name.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Where a picture answered from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Memory,
    Disk,
    Drawn,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Self::Memory => "memory",
            Self::Disk => "disk",
            Self::Drawn => "drawn",
        }
    }
}

/// The drawn pictures: the newest in memory, more on disk, both bounded by count.
pub struct Pictures {
    dir: PathBuf,
    memory: Bounded<String, Bytes>,
    /// The keys on disk, oldest first.
    disk: Mutex<VecDeque<String>>,
    on_disk: usize,
}

impl Pictures {
    /// Keeps `in_memory` pictures in memory and `on_disk` in `dir`, which is read once here (the
    /// pictures already there count, oldest first, and any over the bound are removed).
    pub fn open(dir: PathBuf, in_memory: usize, on_disk: usize) -> Self {
        let mut found: Vec<(std::time::SystemTime, String)> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let key = name.strip_suffix(".png").filter(|k| is_key(k))?.to_string();
                Some((entry.metadata().ok()?.modified().ok()?, key))
            })
            .collect();
        found.sort();
        let on_disk = on_disk.max(1);
        let excess = found.len().saturating_sub(on_disk);
        for (_, key) in found.drain(..excess) {
            let _ = std::fs::remove_file(dir.join(format!("{key}.png")));
        }
        Self {
            dir,
            memory: Bounded::new(in_memory),
            disk: Mutex::new(found.into_iter().map(|(_, key)| key).collect()),
            on_disk,
        }
    }

    /// How many pictures are kept in memory and on disk.
    pub fn counts(&self) -> (usize, usize) {
        (self.memory.len(), self.disk.lock().unwrap_or_else(|p| p.into_inner()).len())
    }

    /// The picture of `text`: from memory, else from disk, else drawn (and then kept in both).
    pub async fn get(&self, text: PictureText, heavy: &HeavyWork) -> Result<(Bytes, Source), ApiError> {
        let key = key_of(&text);
        if let Some(png) = self.memory.get(&key, 0) {
            return Ok((png, Source::Memory));
        }
        if self.disk.lock().unwrap_or_else(|p| p.into_inner()).contains(&key) {
            match tokio::fs::read(self.path(&key)).await {
                Ok(png) if png.starts_with(b"\x89PNG\r\n\x1a\n") => {
                    let png = Bytes::from(png);
                    self.memory.insert(key, png.clone(), crate::time::now_ms());
                    return Ok((png, Source::Disk));
                }
                _ => self.disk.lock().unwrap_or_else(|p| p.into_inner()).retain(|k| k != &key),
            }
        }
        let png = Bytes::from(heavy.run(crate::heavy::HeavyKind::CardPictures, move || picture::draw(&text)).await?);
        self.memory.insert(key.clone(), png.clone(), crate::time::now_ms());
        self.keep_on_disk(key, png.clone()).await;
        Ok((png, Source::Drawn))
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.png"))
    }

    /// Writes the picture (under a temporary name, then renamed) and removes the oldest past the
    /// bound. A failed write (a full or read-only disk) only means it is drawn again next time.
    async fn keep_on_disk(&self, key: String, png: Bytes) {
        let (dir, path) = (self.dir.clone(), self.path(&key));
        let written = tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&dir)?;
            let mut file = tempfile::NamedTempFile::new_in(&dir)?;
            std::io::Write::write_all(&mut file, &png)?;
            file.persist(&path).map_err(|e| e.error)?;
            Ok::<_, std::io::Error>(())
        })
        .await;
        if let Ok(Err(e)) | Err(e) = written.map_err(std::io::Error::other) {
            tracing::debug!("a card picture was not kept on disk: {e}");
            return;
        }
        let evicted: Vec<String> = {
            let mut disk = self.disk.lock().unwrap_or_else(|p| p.into_inner());
            if !disk.contains(&key) {
                disk.push_back(key);
            }
            let excess = disk.len().saturating_sub(self.on_disk);
            disk.drain(..excess).collect()
        };
        if !evicted.is_empty() {
            let paths: Vec<PathBuf> = evicted.iter().map(|k| self.path(k)).collect();
            let _ = tokio::task::spawn_blocking(move || paths.iter().for_each(|p| drop(std::fs::remove_file(p)))).await;
        }
    }
}

/// What the picture route uses.
#[derive(Clone)]
pub struct PicturesState {
    pub site: Arc<SiteSettings>,
    pub cards: Arc<LinkCards>,
    pub heavy: HeavyWork,
}

pub fn router<S: Clone + Send + Sync + 'static>(state: PicturesState) -> Router<S> {
    Router::new().route("/api/players/{username}/card.png", get(player_card_picture)).with_state(state)
}

/// The OpenAPI schema of a PNG body: binary.
pub struct PngFile;

impl utoipa::PartialSchema for PngFile {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Binary)))
            .into()
    }
}

impl utoipa::ToSchema for PngFile {}

/// A player's link-card picture (1200x630 PNG): their name, classification, join date and ELC
/// badge count as the site's last check found them, in the site's colours. Made only from a
/// check of the last `[roblox] profile_ttl_hours` (the newgen check, the bot API, a group scan);
/// never asks Roblox.
#[utoipa::path(get, path = "/api/players/{username}/card.png", tag = "roblox", operation_id = "getPlayerCardPicture",
    params(
        ("username" = String, Path, description = "A Roblox username: 3-20 letters, digits and at most one underscore (not first or last)", min_length = 3, max_length = 20, pattern = r"^[A-Za-z0-9]+(_[A-Za-z0-9]+)?$"),
        ("v" = Option<String>, Query, description = "The picture's version, as the page's og:image names it; ignored (the current picture is answered)"),
    ),
    responses(
        (status = 200, description = "The picture", content_type = "image/png", body = inline(PngFile),
            headers(("x-fanhub-card" = String, description = "Where it came from: memory, disk or drawn"))),
        (status = 304, description = "Not modified"),
        (status = 400, description = "Not a valid Roblox username"),
        (status = 404, description = "The site has no recent check of this player (no Roblox call is made for a picture)")))]
pub(crate) async fn player_card_picture(
    State(state): State<PicturesState>,
    Path(username): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    crate::roblox::classify::check_username(&username).map_err(crate::roblox::RobloxError::BadUsername)?;
    let Some(card) = state.cards.player(&state.site, &username).await? else {
        return Err(ApiError::not_found("No recent check of this player")
            .with_message("Check the player with the newgen detector first; its card lasts as long as the check."));
    };
    let key = key_of(&card.picture);
    let etag = HeaderValue::from_str(&format!("\"{key}\"")).map_err(ApiError::internal)?;
    let caching = [(header::ETAG, etag.clone()), (header::CACHE_CONTROL, Caching::PLAYER_CARD.header())];
    if if_none_match_hits(&headers, &etag) {
        return Ok((StatusCode::NOT_MODIFIED, caching).into_response());
    }
    let (png, source) = state.cards.pictures.get(card.picture, &state.heavy).await?;
    let mut res = (caching, png).into_response();
    res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    res.headers_mut().insert(SOURCE_HEADER, HeaderValue::from_static(source.as_str()));
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(name: &str) -> PictureText {
        PictureText {
            site_name: "Hub".into(),
            username: name.into(),
            classification: "Veteran".into(),
            lines: vec!["Joined Roblox May 2009".into()],
            accent: "#7c3aed".into(),
            on_accent: "#ffffff".into(),
        }
    }

    #[test]
    fn keys_name_everything_a_picture_shows() {
        let a = key_of(&text("Alpha"));
        assert!(is_key(&a), "{a}");
        assert_eq!(a, key_of(&text("Alpha")));
        assert_ne!(a, key_of(&text("Beta")));
        assert_ne!(a, key_of(&PictureText { accent: "#000000".into(), ..text("Alpha") }));
        assert_ne!(a, key_of(&PictureText { lines: vec![], ..text("Alpha") }));
    }

    #[tokio::test]
    async fn pictures_are_kept_in_bounded_numbers_in_memory_and_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join(CACHE_DIR);
        let heavy = HeavyWork::new();
        let pictures = Pictures::open(cache.clone(), 2, 3);
        assert_eq!(pictures.get(text("Alpha"), &heavy).await.unwrap().1, Source::Drawn);
        assert_eq!(pictures.get(text("Alpha"), &heavy).await.unwrap().1, Source::Memory);
        for name in ["Bravo", "Charlie", "Delta", "Echo"] {
            assert_eq!(pictures.get(text(name), &heavy).await.unwrap().1, Source::Drawn);
        }
        assert_eq!(pictures.counts(), (2, 3));
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 3, "the oldest files are removed");
        assert_eq!(pictures.get(text("Alpha"), &heavy).await.unwrap().1, Source::Drawn, "gone from both");
        assert_eq!(pictures.get(text("Delta"), &heavy).await.unwrap().1, Source::Disk);
        // A restart keeps what is on disk; a smaller bound removes the oldest files.
        let reopened = Pictures::open(cache.clone(), 2, 2);
        assert_eq!(reopened.counts(), (0, 2));
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 2);
        assert_eq!(reopened.get(text("Alpha"), &heavy).await.unwrap().1, Source::Disk);
        // A damaged file is drawn again.
        std::fs::write(cache.join(format!("{}.png", key_of(&text("Echo")))), b"junk").unwrap();
        let reopened = Pictures::open(cache, 2, 2);
        let (png, source) = reopened.get(text("Echo"), &heavy).await.unwrap();
        assert!(source != Source::Memory && png.starts_with(b"\x89PNG"), "{source:?}");
    }
}
