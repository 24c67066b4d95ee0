-- Automatic capture: where each conversation's extraction stands, the log of passes, and the ranges parked after
-- repeated failures. None of it is part of the user's memory: "Clear everything" keeps these tables.

-- The next seq each session's extraction starts from. Signal-free text leaves it in place; a pass that read its
-- range, or parked it, moves it to the pass's exclusive end.
CREATE TABLE extract_cursors (
  session_id TEXT PRIMARY KEY,
  next_seq INTEGER NOT NULL CHECK (next_seq >= 0),
  updated_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- One row per finished pass (extracted, skipped, failed attempt, parked) and per one-off extraction.
CREATE TABLE extract_runs (
  id INTEGER PRIMARY KEY,
  session_id TEXT,
  trigger TEXT NOT NULL CHECK (trigger IN ('turn', 'manual', 'flush')),
  decision TEXT NOT NULL CHECK (decision IN ('extracted', 'skipped', 'failed', 'parked')),
  start_seq INTEGER,
  end_seq INTEGER,
  -- JSON array of the turns the range held.
  turns TEXT NOT NULL DEFAULT '[]',
  message_count INTEGER NOT NULL DEFAULT 0,
  chunk_count INTEGER NOT NULL DEFAULT 0,
  chars INTEGER NOT NULL DEFAULT 0,
  text_sha256 TEXT,
  -- The exact text sent to the model, capped at 20,000 characters; NULL when no model was called.
  text_sent TEXT,
  model TEXT,
  attempt INTEGER NOT NULL DEFAULT 1,
  written INTEGER NOT NULL DEFAULT 0,
  review INTEGER NOT NULL DEFAULT 0,
  -- JSON array of {reason, subject?, property?, value?} for candidates that did not land.
  refused TEXT NOT NULL DEFAULT '[]',
  -- JSON array of the fact ids written and proposal ids queued.
  fact_ids TEXT NOT NULL DEFAULT '[]',
  proposal_ids TEXT NOT NULL DEFAULT '[]',
  note TEXT,
  error TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX extract_runs_by_finished ON extract_runs (finished_at);
CREATE INDEX extract_runs_by_session ON extract_runs (session_id, end_seq) WHERE session_id IS NOT NULL;

-- A range that failed three times: kept with its anchors so nothing is lost silently; the cursor moved past it.
CREATE TABLE extract_pending (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  start_seq INTEGER NOT NULL,
  end_seq INTEGER NOT NULL,
  turns TEXT NOT NULL DEFAULT '[]',
  text_sha256 TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_error TEXT NOT NULL,
  parked_at TEXT NOT NULL,
  resolved_at TEXT
) STRICT;

CREATE INDEX extract_pending_open ON extract_pending (parked_at) WHERE resolved_at IS NULL;
