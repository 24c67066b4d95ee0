-- The foundation: store identity, entities, facts with bi-temporal history, their sources, identifiers and
-- full-text terms, conflict groups, tombstones and proposals.

CREATE TABLE store_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  store_id TEXT NOT NULL,
  generation INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE entities (
  id INTEGER PRIMARY KEY,
  entity_key TEXT NOT NULL UNIQUE,
  display TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE conflict_groups (
  id INTEGER PRIMARY KEY,
  slot_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
  opened_at TEXT NOT NULL,
  closed_at TEXT,
  settled_by INTEGER
) STRICT;

CREATE INDEX conflict_groups_by_slot ON conflict_groups (slot_key) WHERE status = 'open';

CREATE TABLE facts (
  id INTEGER PRIMARY KEY,
  entity_id INTEGER NOT NULL REFERENCES entities (id),
  subject TEXT NOT NULL,
  property TEXT NOT NULL,
  predicate_key TEXT NOT NULL,
  qualifiers TEXT NOT NULL DEFAULT '{}',
  scope TEXT NOT NULL DEFAULT 'global',
  value TEXT NOT NULL,
  slot_key TEXT NOT NULL,
  claim_key TEXT NOT NULL,
  evidence_key TEXT NOT NULL,
  multi INTEGER NOT NULL DEFAULT 0 CHECK (multi IN (0, 1)),
  status TEXT NOT NULL
    CHECK (status IN ('active', 'scheduled', 'conflict', 'superseded', 'retired', 'expired', 'forgotten')),
  evidence TEXT NOT NULL CHECK (evidence IN ('explicit_user', 'confirmed_user', 'observed', 'unverified')),
  evidence_rank INTEGER NOT NULL CHECK (evidence_rank BETWEEN 0 AND 3),
  confidence REAL NOT NULL DEFAULT 1 CHECK (confidence BETWEEN 0 AND 1),
  sensitivity TEXT CHECK (sensitivity IN ('credential', 'email', 'phone', 'id_number')),
  model_use_allowed INTEGER NOT NULL DEFAULT 1 CHECK (model_use_allowed IN (0, 1)),
  observed_at TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  valid_from TEXT NOT NULL,
  valid_to TEXT,
  superseded_by INTEGER REFERENCES facts (id),
  conflict_group_id INTEGER REFERENCES conflict_groups (id),
  revision INTEGER NOT NULL DEFAULT 1,
  origin TEXT NOT NULL CHECK (origin IN ('tool', 'import', 'rule', 'extract', 'proposal', 'page')),
  session_id TEXT,
  turn INTEGER,
  quote TEXT,
  updated_at TEXT NOT NULL
) STRICT;

-- One current value per single-valued slot; multi-valued rows are exempt.
CREATE UNIQUE INDEX facts_one_active_per_slot ON facts (slot_key) WHERE status = 'active' AND multi = 0;
-- An exact duplicate of a current claim is the same row.
CREATE UNIQUE INDEX facts_one_current_claim ON facts (claim_key) WHERE status IN ('active', 'scheduled', 'conflict');
CREATE INDEX facts_by_slot ON facts (slot_key, status);
CREATE INDEX facts_by_claim ON facts (claim_key);
CREATE INDEX facts_by_entity ON facts (entity_id, predicate_key);
CREATE INDEX facts_by_session ON facts (session_id, turn) WHERE session_id IS NOT NULL;
CREATE INDEX facts_directory_order ON facts (evidence_rank, observed_at DESC, id) WHERE status = 'active';
CREATE INDEX facts_by_status ON facts (status, evidence);
CREATE INDEX facts_scheduled_by_start ON facts (valid_from) WHERE status = 'scheduled';
CREATE INDEX facts_ending_by_valid_to ON facts (valid_to) WHERE valid_to IS NOT NULL AND status IN ('active', 'conflict');

-- How many active facts the model may read, kept by triggers so the directory never counts 100k rows.
CREATE TABLE directory_counts (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  plain INTEGER NOT NULL DEFAULT 0,
  sensitive INTEGER NOT NULL DEFAULT 0
) STRICT;

INSERT INTO directory_counts (id) VALUES (1);

CREATE TRIGGER facts_counts_after_insert AFTER INSERT ON facts
  WHEN NEW.status = 'active' AND NEW.model_use_allowed = 1
BEGIN
  UPDATE directory_counts SET plain = plain + (NEW.sensitivity IS NULL), sensitive = sensitive + (NEW.sensitivity IS NOT NULL)
    WHERE id = 1;
END;

CREATE TRIGGER facts_counts_after_update AFTER UPDATE OF status, sensitivity, model_use_allowed ON facts
BEGIN
  UPDATE directory_counts SET
    plain = plain
      - (OLD.status = 'active' AND OLD.model_use_allowed = 1 AND OLD.sensitivity IS NULL)
      + (NEW.status = 'active' AND NEW.model_use_allowed = 1 AND NEW.sensitivity IS NULL),
    sensitive = sensitive
      - (OLD.status = 'active' AND OLD.model_use_allowed = 1 AND OLD.sensitivity IS NOT NULL)
      + (NEW.status = 'active' AND NEW.model_use_allowed = 1 AND NEW.sensitivity IS NOT NULL)
    WHERE id = 1;
END;

CREATE TRIGGER facts_counts_after_delete AFTER DELETE ON facts
  WHEN OLD.status = 'active' AND OLD.model_use_allowed = 1
BEGIN
  UPDATE directory_counts SET plain = plain - (OLD.sensitivity IS NULL), sensitive = sensitive - (OLD.sensitivity IS NOT NULL)
    WHERE id = 1;
END;

CREATE TABLE fact_sources (
  id INTEGER PRIMARY KEY,
  fact_id INTEGER NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
  origin TEXT NOT NULL CHECK (origin IN ('tool', 'import', 'rule', 'extract', 'proposal', 'page')),
  evidence TEXT NOT NULL CHECK (evidence IN ('explicit_user', 'confirmed_user', 'observed', 'unverified')),
  session_id TEXT,
  turn INTEGER,
  quote TEXT,
  observed_at TEXT NOT NULL
) STRICT;

CREATE INDEX fact_sources_by_fact ON fact_sources (fact_id, observed_at);
CREATE INDEX fact_sources_by_session ON fact_sources (session_id, turn) WHERE session_id IS NOT NULL;

CREATE TABLE fact_identifiers (
  ident TEXT NOT NULL,
  fact_id INTEGER NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
  PRIMARY KEY (ident, fact_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX fact_identifiers_by_fact ON fact_identifiers (fact_id);

-- Terms are chosen by the plugin's tokenizer (CJK bigrams, ASCII words); FTS5 adds Porter stemming on top.
CREATE VIRTUAL TABLE facts_fts USING fts5 (terms, tokenize = 'porter unicode61 remove_diacritics 2');

CREATE TABLE tombstones (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('claim', 'evidence')),
  key TEXT NOT NULL,
  fact_id INTEGER REFERENCES facts (id),
  created_at TEXT NOT NULL,
  UNIQUE (kind, key)
) STRICT;

CREATE TABLE proposals (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('add_fact')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'applied', 'rejected', 'stale')),
  reason TEXT NOT NULL,
  revision INTEGER NOT NULL DEFAULT 1,
  payload TEXT NOT NULL,
  session_id TEXT,
  turn INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

CREATE INDEX proposals_by_status ON proposals (status, created_at);
