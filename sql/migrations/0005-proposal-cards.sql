-- A change may get a new card once its earlier card is closed: a stale card, or an applied one whose value has
-- since been replaced, stays as history beside the fresh card. The fingerprint stays unique among pending cards only,
-- so the queue still never holds the same change twice.

CREATE TABLE proposals_next (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL,
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

INSERT INTO proposals_next (id, fingerprint, kind, status, reason, revision, rows, session_id, turn, created_at, updated_at, decided_at)
  SELECT id, fingerprint, kind, status, reason, revision, rows, session_id, turn, created_at, updated_at, decided_at
  FROM proposals;

DROP TABLE proposals;
ALTER TABLE proposals_next RENAME TO proposals;
CREATE INDEX proposals_by_status ON proposals (status, created_at);
CREATE INDEX proposals_by_session ON proposals (session_id, turn) WHERE session_id IS NOT NULL;
-- Every card a change got, newest last: what became of the last one decides a repeated proposal.
CREATE INDEX proposals_by_fingerprint ON proposals (fingerprint, id);
CREATE UNIQUE INDEX proposals_one_pending_per_fingerprint ON proposals (fingerprint) WHERE status = 'pending';
