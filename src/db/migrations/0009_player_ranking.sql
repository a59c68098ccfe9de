-- Leaderboards over many stored players: the number of players of each generation kept by
-- triggers (a page's total is one row, not a count over the index), and an index for every
-- order a leaderboard offers, alone and within a generation. Each index ends in the rowid
-- (user_id), the tie-break the queries name.
CREATE TABLE player_counts (
  generation TEXT PRIMARY KEY,
  players INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO player_counts (generation, players) SELECT generation, COUNT(*) FROM players GROUP BY generation;

CREATE TRIGGER player_counts_insert AFTER INSERT ON players BEGIN
  INSERT INTO player_counts (generation, players) VALUES (NEW.generation, 1)
    ON CONFLICT (generation) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER player_counts_delete AFTER DELETE ON players BEGIN
  UPDATE player_counts SET players = players - 1 WHERE generation = OLD.generation;
END;

CREATE TRIGGER player_counts_update AFTER UPDATE OF generation ON players
WHEN OLD.generation IS NOT NEW.generation BEGIN
  UPDATE player_counts SET players = players - 1 WHERE generation = OLD.generation;
  INSERT INTO player_counts (generation, players) VALUES (NEW.generation, 1)
    ON CONFLICT (generation) DO UPDATE SET players = players + 1;
END;

CREATE INDEX players_created ON players (created);
CREATE INDEX players_generation_created ON players (generation, created);
CREATE INDEX players_generation_checked ON players (generation, checked_at);
