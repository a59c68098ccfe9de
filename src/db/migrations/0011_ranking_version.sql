-- A number that changes with every write to what the leaderboards and group pages show
-- (players, group members, scans), kept by triggers. A page kept serialized in memory is
-- current while this number is the one it was made at: one read instead of the page's query.
CREATE TABLE ranking_version (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL
);

INSERT INTO ranking_version (id, version) VALUES (1, 0);

CREATE TRIGGER ranking_version_players_insert AFTER INSERT ON players BEGIN
  UPDATE ranking_version SET version = version + 1;
END;
CREATE TRIGGER ranking_version_players_update AFTER UPDATE ON players BEGIN
  UPDATE ranking_version SET version = version + 1;
END;
CREATE TRIGGER ranking_version_players_delete AFTER DELETE ON players BEGIN
  UPDATE ranking_version SET version = version + 1;
END;
CREATE TRIGGER ranking_version_members_insert AFTER INSERT ON group_members BEGIN
  UPDATE ranking_version SET version = version + 1;
END;
CREATE TRIGGER ranking_version_members_update AFTER UPDATE ON group_members BEGIN
  UPDATE ranking_version SET version = version + 1;
END;
CREATE TRIGGER ranking_version_members_delete AFTER DELETE ON group_members BEGIN
  UPDATE ranking_version SET version = version + 1;
END;
CREATE TRIGGER ranking_version_scans_insert AFTER INSERT ON scans BEGIN
  UPDATE ranking_version SET version = version + 1;
END;
CREATE TRIGGER ranking_version_scans_update AFTER UPDATE ON scans BEGIN
  UPDATE ranking_version SET version = version + 1;
END;
CREATE TRIGGER ranking_version_scans_delete AFTER DELETE ON scans BEGIN
  UPDATE ranking_version SET version = version + 1;
END;
