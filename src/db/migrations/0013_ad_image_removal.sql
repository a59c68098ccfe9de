-- When the image file of a rejected application was deleted (after the audit window); the row
-- stays for the audit, and the listing shows the image as gone.
ALTER TABLE advertisements ADD COLUMN image_removed_at INTEGER;
