-- Derived columns, and a narrower state index. Two columns of a fact are no longer stored but derived: the evidence
-- key a forget tombstones (a hash of the quote, the claim and the project: src/text/normalize.ts evidenceKeyOf) is
-- computed from the row when it is needed, and the evidence level is read from its rank (one byte) through a virtual
-- column; a source's evidence is stored as its rank the same way. The stored evidence keys were checked equal to the
-- derived ones on every kind of row. The index of facts by state leaves the current ones out (see below). The runner
-- copies the store before this runs, checks every reference before the commit, and compacts the file after it.
-- compact: vacuum after

CREATE TABLE facts_derived (
  id INTEGER PRIMARY KEY,
  entity_id INTEGER NOT NULL REFERENCES entities (id),
  subject TEXT NOT NULL,
  property TEXT NOT NULL,
  predicate_key TEXT NOT NULL,
  qualifiers TEXT NOT NULL DEFAULT '{}',
  scope TEXT NOT NULL DEFAULT 'global',
  value TEXT NOT NULL,
  slot_key BLOB NOT NULL CHECK (length(slot_key) = 32),
  claim_key BLOB NOT NULL CHECK (length(claim_key) = 32),
  multi INTEGER NOT NULL DEFAULT 0 CHECK (multi IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('active', 'scheduled', 'conflict', 'superseded', 'retired', 'expired', 'forgotten')),
  evidence_rank INTEGER NOT NULL CHECK (evidence_rank BETWEEN 0 AND 3),
  evidence TEXT GENERATED ALWAYS AS (CASE evidence_rank WHEN 0 THEN 'explicit_user' WHEN 1 THEN 'confirmed_user'
    WHEN 2 THEN 'observed' ELSE 'unverified' END) VIRTUAL,
  confidence REAL NOT NULL DEFAULT 1 CHECK (confidence BETWEEN 0 AND 1),
  sensitivity TEXT CHECK (sensitivity IN ('credential', 'email', 'phone', 'id_number')),
  model_use_allowed INTEGER NOT NULL DEFAULT 1 CHECK (model_use_allowed IN (0, 1)),
  observed_at INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL,
  valid_from INTEGER NOT NULL,
  valid_to INTEGER,
  superseded_by INTEGER REFERENCES facts (id),
  conflict_group_id INTEGER REFERENCES conflict_groups (id),
  revision INTEGER NOT NULL DEFAULT 1,
  origin TEXT NOT NULL CHECK (origin IN ('tool', 'import', 'rule', 'extract', 'proposal', 'page')),
  session_id TEXT,
  turn INTEGER,
  quote TEXT,
  updated_at INTEGER NOT NULL,
  folded_count INTEGER NOT NULL DEFAULT 0 CHECK (folded_count >= 0),
  folded_from TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(folded_from) AND json_type(folded_from) = 'array' AND json_array_length(folded_from) <= 20),
  pinned_at INTEGER
) STRICT;

INSERT INTO facts_derived (id, entity_id, subject, property, predicate_key, qualifiers, scope, value, slot_key, claim_key,
    multi, status, evidence_rank, confidence, sensitivity, model_use_allowed, observed_at, recorded_at, valid_from, valid_to,
    superseded_by, conflict_group_id, revision, origin, session_id, turn, quote, updated_at, folded_count, folded_from,
    pinned_at)
  -- The rank is read from the stored level, so the level every row showed is the level it shows.
  SELECT id, entity_id, subject, property, predicate_key, qualifiers, scope, value, slot_key, claim_key,
    multi, status, CASE evidence WHEN 'explicit_user' THEN 0 WHEN 'confirmed_user' THEN 1 WHEN 'observed' THEN 2 ELSE 3 END,
    confidence, sensitivity, model_use_allowed, observed_at, recorded_at, valid_from, valid_to,
    superseded_by, conflict_group_id, revision, origin, session_id, turn, quote, updated_at, folded_count, folded_from,
    pinned_at
  FROM facts ORDER BY id;

DROP TABLE facts;
ALTER TABLE facts_derived RENAME TO facts;

CREATE TABLE fact_sources_derived (
  id INTEGER PRIMARY KEY,
  fact_id INTEGER NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
  origin TEXT NOT NULL CHECK (origin IN ('tool', 'import', 'rule', 'extract', 'proposal', 'page')),
  evidence_rank INTEGER NOT NULL CHECK (evidence_rank BETWEEN 0 AND 3),
  evidence TEXT GENERATED ALWAYS AS (CASE evidence_rank WHEN 0 THEN 'explicit_user' WHEN 1 THEN 'confirmed_user'
    WHEN 2 THEN 'observed' ELSE 'unverified' END) VIRTUAL,
  session_id TEXT,
  turn INTEGER,
  quote TEXT,
  observed_at INTEGER NOT NULL
) STRICT;
INSERT INTO fact_sources_derived (id, fact_id, origin, evidence_rank, session_id, turn, quote, observed_at)
  SELECT id, fact_id, origin,
    CASE evidence WHEN 'explicit_user' THEN 0 WHEN 'confirmed_user' THEN 1 WHEN 'observed' THEN 2 ELSE 3 END,
    session_id, turn, quote, observed_at
  FROM fact_sources ORDER BY id;
DROP TABLE fact_sources;
ALTER TABLE fact_sources_derived RENAME TO fact_sources;
-- Sources are read by their fact only, a handful each, sorted after the seek.
CREATE INDEX fact_sources_by_fact ON fact_sources (fact_id);

-- The indexes a hot query needs.
-- A slot's rows (every write's slot decision, the near-duplicate gate, history in search answers); with the state,
-- a many-valued slot's current values are counted from the index alone.
CREATE INDEX facts_by_slot ON facts (slot_key, status);
-- One current value per single-valued slot, and one current row per claim: the slot rules' own guarantees.
CREATE UNIQUE INDEX facts_one_active_per_slot ON facts (slot_key) WHERE status = 'active' AND multi = 0;
CREATE UNIQUE INDEX facts_one_current_claim ON facts (claim_key) WHERE status IN ('active', 'scheduled', 'conflict');
-- The directory: current facts, strongest evidence first, newest within, read by walking this index backwards. Its
-- instants ascend, so a new fact's entry lands at the end of its evidence rank's run: kept in descending order, each
-- went in at the start of its run, and the pages split there stayed half empty (39 against 22 bytes an entry).
CREATE INDEX facts_directory_order ON facts (evidence_rank DESC, observed_at, id DESC) WHERE status = 'active';
-- An entity's facts by state (the graph's counts and its one-hop tree, renames and merges).
CREATE INDEX facts_by_entity_status ON facts (entity_id, status, sensitivity);
-- The facts page, newest first within a state other than current: most facts are current, and their run is read in
-- rowid order from the table itself (src/store/library-store.ts), so the index leaves them out.
CREATE INDEX facts_by_status_id ON facts (status, id) WHERE status <> 'active';
-- The facts of a scope other than the global one (a project's directory count, the page's scope list): the global
-- scope, which most facts share, is counted by triggers instead, so it is left out of the index.
CREATE INDEX facts_by_scope ON facts (scope, status) WHERE scope <> 'global';
-- The search's dates channel: facts whose value took effect within a window a question names.
CREATE INDEX facts_by_valid_from ON facts (valid_from);
-- The vector sweep a write asks for: what changed lately; and the page's activity since a visit, since a fact is
-- updated no earlier than it is recorded (what was recorded since an instant is among what was updated since).
CREATE INDEX facts_by_updated ON facts (updated_at);
-- A conversation's facts (the page's conversation drawer, its turn cards); a handful, sorted after the seek.
CREATE INDEX facts_by_session ON facts (session_id) WHERE session_id IS NOT NULL;
-- The time-driven sweep's values whose window ends (values scheduled to start are found on facts_by_status_id),
-- and the directory's pins.
CREATE INDEX facts_ending_by_valid_to ON facts (valid_to) WHERE valid_to IS NOT NULL AND status IN ('active', 'conflict');
CREATE INDEX facts_pinned ON facts (pinned_at, id) WHERE pinned_at IS NOT NULL;


-- The counts the directory and the status read, kept by triggers (as before the rebuild).
CREATE TRIGGER facts_counts_after_insert AFTER INSERT ON facts WHEN NEW.status = 'active' AND NEW.model_use_allowed = 1
BEGIN
  UPDATE directory_counts SET
    plain = plain + (NEW.sensitivity IS NULL),
    sensitive = sensitive + (NEW.sensitivity IS NOT NULL),
    project_plain = project_plain + (NEW.sensitivity IS NULL AND substr(NEW.scope, 1, 8) = 'project:'),
    project_sensitive = project_sensitive + (NEW.sensitivity IS NOT NULL AND substr(NEW.scope, 1, 8) = 'project:')
  WHERE id = 1;
END;
CREATE TRIGGER facts_counts_after_delete AFTER DELETE ON facts WHEN OLD.status = 'active' AND OLD.model_use_allowed = 1
BEGIN
  UPDATE directory_counts SET
    plain = plain - (OLD.sensitivity IS NULL),
    sensitive = sensitive - (OLD.sensitivity IS NOT NULL),
    project_plain = project_plain - (OLD.sensitivity IS NULL AND substr(OLD.scope, 1, 8) = 'project:'),
    project_sensitive = project_sensitive - (OLD.sensitivity IS NOT NULL AND substr(OLD.scope, 1, 8) = 'project:')
  WHERE id = 1;
END;
CREATE TRIGGER facts_counts_after_update AFTER UPDATE OF status, sensitivity, model_use_allowed, scope ON facts
BEGIN
  UPDATE directory_counts SET
    plain = plain
      - (OLD.status = 'active' AND OLD.model_use_allowed = 1 AND OLD.sensitivity IS NULL)
      + (NEW.status = 'active' AND NEW.model_use_allowed = 1 AND NEW.sensitivity IS NULL),
    sensitive = sensitive
      - (OLD.status = 'active' AND OLD.model_use_allowed = 1 AND OLD.sensitivity IS NOT NULL)
      + (NEW.status = 'active' AND NEW.model_use_allowed = 1 AND NEW.sensitivity IS NOT NULL),
    project_plain = project_plain
      - (OLD.status = 'active' AND OLD.model_use_allowed = 1 AND OLD.sensitivity IS NULL AND substr(OLD.scope, 1, 8) = 'project:')
      + (NEW.status = 'active' AND NEW.model_use_allowed = 1 AND NEW.sensitivity IS NULL AND substr(NEW.scope, 1, 8) = 'project:'),
    project_sensitive = project_sensitive
      - (OLD.status = 'active' AND OLD.model_use_allowed = 1 AND OLD.sensitivity IS NOT NULL AND substr(OLD.scope, 1, 8) = 'project:')
      + (NEW.status = 'active' AND NEW.model_use_allowed = 1 AND NEW.sensitivity IS NOT NULL AND substr(NEW.scope, 1, 8) = 'project:')
  WHERE id = 1;
END;
CREATE TRIGGER facts_fact_counts_after_insert AFTER INSERT ON facts
BEGIN
  INSERT INTO fact_counts (status, evidence, n) VALUES (NEW.status, NEW.evidence, 1)
    ON CONFLICT (status, evidence) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER facts_fact_counts_after_delete AFTER DELETE ON facts
BEGIN
  UPDATE fact_counts SET n = n - 1 WHERE status = OLD.status AND evidence = OLD.evidence;
END;
CREATE TRIGGER facts_fact_counts_after_update AFTER UPDATE OF status, evidence_rank ON facts
  WHEN OLD.status <> NEW.status OR OLD.evidence <> NEW.evidence
BEGIN
  UPDATE fact_counts SET n = n - 1 WHERE status = OLD.status AND evidence = OLD.evidence;
  INSERT INTO fact_counts (status, evidence, n) VALUES (NEW.status, NEW.evidence, 1)
    ON CONFLICT (status, evidence) DO UPDATE SET n = n + 1;
END;
