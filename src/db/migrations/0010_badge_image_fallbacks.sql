-- The badge cards' fallback pictures: a JSON array of image URLs (Roblox's thumbnails of the
-- badge's icon image asset), tried in order when image_url fails to load. NULL: not asked yet.
ALTER TABLE badge_info ADD COLUMN image_fallbacks TEXT;
