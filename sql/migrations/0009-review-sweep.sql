-- The near-duplicate review. review_verdicts remembers each pair the model judged distinct, keyed by its two facts
-- (smaller id first) and the claim keys it compared, so a pair costs one call until either value changes;
-- vector_generation is the embedding generation the verdict was given under (0: the lexical leg, before vectors).
-- A fact's verdicts go with it. review_sweeps is the ledger of sweeps (bookkeeping: the last 500 are kept).
CREATE TABLE review_verdicts (
  low_fact_id INTEGER NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
  high_fact_id INTEGER NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
  low_claim_key TEXT NOT NULL,
  high_claim_key TEXT NOT NULL,
  vector_generation INTEGER NOT NULL DEFAULT 0 CHECK (vector_generation >= 0),
  verdict TEXT NOT NULL CHECK (verdict = 'distinct'),
  judged_at TEXT NOT NULL,
  PRIMARY KEY (low_fact_id, high_fact_id, low_claim_key, high_claim_key, vector_generation),
  CHECK (low_fact_id < high_fact_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX review_verdicts_high ON review_verdicts (high_fact_id);

CREATE TABLE review_sweeps (
  id INTEGER PRIMARY KEY,
  trigger TEXT NOT NULL CHECK (trigger IN ('timer', 'asked')),
  outcome TEXT NOT NULL CHECK (outcome IN ('swept', 'deferred')),
  budget INTEGER NOT NULL CHECK (budget >= 0),
  candidates INTEGER NOT NULL CHECK (candidates >= 0),
  remembered INTEGER NOT NULL CHECK (remembered >= 0),
  asked INTEGER NOT NULL CHECK (asked >= 0),
  same INTEGER NOT NULL CHECK (same >= 0),
  distinct_pairs INTEGER NOT NULL CHECK (distinct_pairs >= 0),
  unsure INTEGER NOT NULL CHECK (unsure >= 0),
  unanswered INTEGER NOT NULL CHECK (unanswered >= 0),
  deferred INTEGER NOT NULL CHECK (deferred >= 0),
  proposal_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(proposal_ids) AND json_type(proposal_ids) = 'array'),
  model TEXT,
  note TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL
) STRICT;
