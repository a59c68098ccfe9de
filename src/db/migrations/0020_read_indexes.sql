-- Reads that cost the same in year one and year five (issue 37).

-- Player search: the start of a username or display name (LIKE 'q%', ASCII case folded), the
-- shortest username first. These indexes hold that order: by the username's length, then the
-- matched name folded as LIKE folds it, so each length is two range reads instead of a scan of
-- every player. The display-name index carries the username too (the order within a length).
CREATE INDEX players_search_username ON players (length(username), username COLLATE NOCASE);
CREATE INDEX players_search_display ON players (length(username), display_name COLLATE NOCASE, username);

-- Every scanned group's members, veterans and newgens, kept by triggers as members are
-- recorded and players reclassified: `all-group-leaderboards` reads one row per group instead of
-- counting every member of every group per request. A member without a stored player counts
-- as a member only (as the counts over group_members JOIN players did).
CREATE TABLE group_member_counts (
  group_id INTEGER PRIMARY KEY,
  members INTEGER NOT NULL,
  veterans INTEGER NOT NULL,
  newgens INTEGER NOT NULL
);

INSERT INTO group_member_counts (group_id, members, veterans, newgens)
SELECT m.group_id, COUNT(*), COALESCE(SUM(p.is_veteran != 0), 0), COALESCE(SUM(p.is_newgen != 0), 0)
FROM group_members m LEFT JOIN players p ON p.user_id = m.user_id GROUP BY m.group_id;

CREATE TRIGGER group_member_counts_insert AFTER INSERT ON group_members BEGIN
  INSERT INTO group_member_counts (group_id, members, veterans, newgens)
  SELECT NEW.group_id, 1, COALESCE(SUM(p.is_veteran != 0), 0), COALESCE(SUM(p.is_newgen != 0), 0)
    FROM players p WHERE p.user_id = NEW.user_id
  ON CONFLICT (group_id) DO UPDATE SET members = members + 1, veterans = veterans + excluded.veterans,
    newgens = newgens + excluded.newgens;
END;

CREATE TRIGGER group_member_counts_delete AFTER DELETE ON group_members BEGIN
  UPDATE group_member_counts SET members = members - 1,
    veterans = veterans - COALESCE((SELECT p.is_veteran != 0 FROM players p WHERE p.user_id = OLD.user_id), 0),
    newgens = newgens - COALESCE((SELECT p.is_newgen != 0 FROM players p WHERE p.user_id = OLD.user_id), 0)
  WHERE group_id = OLD.group_id;
END;

CREATE TRIGGER group_member_counts_player_insert AFTER INSERT ON players
WHEN NEW.is_veteran != 0 OR NEW.is_newgen != 0 BEGIN
  UPDATE group_member_counts SET veterans = veterans + (NEW.is_veteran != 0), newgens = newgens + (NEW.is_newgen != 0)
  WHERE group_id IN (SELECT m.group_id FROM group_members m WHERE m.user_id = NEW.user_id);
END;

CREATE TRIGGER group_member_counts_player_delete AFTER DELETE ON players
WHEN OLD.is_veteran != 0 OR OLD.is_newgen != 0 BEGIN
  UPDATE group_member_counts SET veterans = veterans - (OLD.is_veteran != 0), newgens = newgens - (OLD.is_newgen != 0)
  WHERE group_id IN (SELECT m.group_id FROM group_members m WHERE m.user_id = OLD.user_id);
END;

CREATE TRIGGER group_member_counts_player_update AFTER UPDATE OF is_veteran, is_newgen ON players
WHEN (OLD.is_veteran != 0) != (NEW.is_veteran != 0) OR (OLD.is_newgen != 0) != (NEW.is_newgen != 0) BEGIN
  UPDATE group_member_counts
  SET veterans = veterans + (NEW.is_veteran != 0) - (OLD.is_veteran != 0),
      newgens = newgens + (NEW.is_newgen != 0) - (OLD.is_newgen != 0)
  WHERE group_id IN (SELECT m.group_id FROM group_members m WHERE m.user_id = NEW.user_id);
END;

-- Rows per table for the admin's Database panel, kept by an insert and a delete trigger on each
-- table (made by `db::table_counts` when the database opens, for every table there is then, so
-- tables later migrations add are counted too): a count over every row of a year's tables took
-- half a second per request.
CREATE TABLE table_counts (
  name TEXT PRIMARY KEY,
  rows INTEGER NOT NULL
) WITHOUT ROWID;

-- The admin dashboard's figures without a pass over a growing table: accounts created today
-- from an index, and the ELC badges of every stored player as one sum kept by triggers.
CREATE INDEX users_created ON users (created_at);

CREATE TABLE player_elc_total (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  elc_badges INTEGER NOT NULL
);

INSERT INTO player_elc_total (id, elc_badges) SELECT 1, COALESCE(SUM(elc_count), 0) FROM players;

CREATE TRIGGER player_elc_total_insert AFTER INSERT ON players WHEN NEW.elc_count IS NOT NULL BEGIN
  UPDATE player_elc_total SET elc_badges = elc_badges + NEW.elc_count;
END;

CREATE TRIGGER player_elc_total_delete AFTER DELETE ON players WHEN OLD.elc_count IS NOT NULL BEGIN
  UPDATE player_elc_total SET elc_badges = elc_badges - OLD.elc_count;
END;

CREATE TRIGGER player_elc_total_update AFTER UPDATE OF elc_count ON players
WHEN OLD.elc_count IS NOT NEW.elc_count BEGIN
  UPDATE player_elc_total SET elc_badges = elc_badges + COALESCE(NEW.elc_count, 0) - COALESCE(OLD.elc_count, 0);
END;
