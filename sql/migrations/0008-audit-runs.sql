-- The health check's ledger: one row per run, kept to the last 500 (bookkeeping outside the user's memory: writing
-- it never bumps the store generation). found_* count the rows each class found, *_queued the rows a pending card
-- already held, declined the rows the user had rejected or struck before; cards lists the cards the run created as a
-- JSON array of {kind, id, rows, batch}.
CREATE TABLE audit_runs (
  id INTEGER PRIMARY KEY,
  trigger TEXT NOT NULL CHECK (trigger IN ('timer', 'asked')),
  found_retire INTEGER NOT NULL DEFAULT 0,
  found_fold INTEGER NOT NULL DEFAULT 0,
  found_alias INTEGER NOT NULL DEFAULT 0,
  cards TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(cards) AND json_type(cards) = 'array'),
  already_queued INTEGER NOT NULL DEFAULT 0,
  declined INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL DEFAULT 0
) STRICT;
