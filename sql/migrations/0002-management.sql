-- The management API: receipts of fenced operations, a log of reversible edits (the undo behind fact-restore),
-- store metadata, and a proposals table whose cards hold one or more proposed rows.

CREATE TABLE operations (
  operation_id TEXT PRIMARY KEY,
  verb TEXT NOT NULL,
  payload_sha256 TEXT NOT NULL,
  receipt TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE store_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- One row per reversible edit. `created` lists rows the edit inserted, `changed` the prior state of rows it
-- altered, `groups` the prior state of conflict groups it closed; each entry carries the revision the edit left,
-- so an undo can tell whether anything moved since.
CREATE TABLE fact_edits (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('update', 'expire', 'resolve', 'apply')),
  fact_id INTEGER REFERENCES facts (id),
  proposal_id INTEGER,
  created TEXT NOT NULL DEFAULT '[]',
  changed TEXT NOT NULL DEFAULT '[]',
  groups TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  undone_at TEXT
) STRICT;

CREATE TABLE proposals_next (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('add_fact', 'merge', 'retire', 'fold', 'alias')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'applied', 'rejected', 'stale')),
  reason TEXT NOT NULL,
  revision INTEGER NOT NULL DEFAULT 1,
  -- JSON array of proposed rows; each row carries the facts (id and revision) it was proposed against.
  rows TEXT NOT NULL,
  session_id TEXT,
  turn INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  decided_at TEXT
) STRICT;

INSERT INTO proposals_next (id, fingerprint, kind, status, reason, revision, rows, session_id, turn, created_at, updated_at)
  SELECT id, fingerprint, kind, status, reason, revision, json_array(json_insert(json(payload), '$.targets', json('[]'))),
    session_id, turn, created_at, updated_at
  FROM proposals;

DROP TABLE proposals;
ALTER TABLE proposals_next RENAME TO proposals;
CREATE INDEX proposals_by_status ON proposals (status, created_at);
CREATE INDEX proposals_by_session ON proposals (session_id, turn) WHERE session_id IS NOT NULL;
CREATE INDEX facts_by_recorded ON facts (recorded_at);
CREATE INDEX conflict_groups_by_opened ON conflict_groups (opened_at);

-- Facts per status and evidence, kept by triggers so status and the library never count 100k rows.
CREATE TABLE fact_counts (
  status TEXT NOT NULL,
  evidence TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (status, evidence)
) STRICT, WITHOUT ROWID;

INSERT INTO fact_counts (status, evidence, n) SELECT status, evidence, count(*) FROM facts GROUP BY status, evidence;

CREATE TRIGGER facts_fact_counts_after_insert AFTER INSERT ON facts
BEGIN
  INSERT INTO fact_counts (status, evidence, n) VALUES (NEW.status, NEW.evidence, 1)
    ON CONFLICT (status, evidence) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER facts_fact_counts_after_update AFTER UPDATE OF status, evidence ON facts
  WHEN OLD.status <> NEW.status OR OLD.evidence <> NEW.evidence
BEGIN
  UPDATE fact_counts SET n = n - 1 WHERE status = OLD.status AND evidence = OLD.evidence;
  INSERT INTO fact_counts (status, evidence, n) VALUES (NEW.status, NEW.evidence, 1)
    ON CONFLICT (status, evidence) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER facts_fact_counts_after_delete AFTER DELETE ON facts
BEGIN
  UPDATE fact_counts SET n = n - 1 WHERE status = OLD.status AND evidence = OLD.evidence;
END;

-- The library pages each status newest first.
CREATE INDEX facts_by_status_id ON facts (status, id);
