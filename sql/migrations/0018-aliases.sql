-- Lasting aliases: a subject renamed or merged into another, or a subject's property renamed, keeps its old name as
-- an alias, so a later write under that name (from the model, the rules, extraction or import) lands on the
-- canonical entity or property and the split never comes back. kind 'entity': alias_key and canonical_key are entity
-- keys, entity_key is ''. kind 'predicate': they are predicate keys of the one entity named by entity_key. An alias
-- key has at most one row of its kind and entity; the canonical side is never itself an alias (the store repoints a
-- chain when it records one).
CREATE TABLE aliases (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('entity', 'predicate')),
  entity_key TEXT NOT NULL DEFAULT '',
  alias_key TEXT NOT NULL,
  alias_text TEXT NOT NULL,
  canonical_key TEXT NOT NULL,
  canonical_text TEXT NOT NULL,
  origin TEXT NOT NULL CHECK (origin IN ('rename', 'merge', 'card', 'import')),
  created_at TEXT NOT NULL,
  CHECK (alias_key <> canonical_key),
  CHECK ((kind = 'entity') = (entity_key = ''))
) STRICT;
CREATE UNIQUE INDEX aliases_by_key ON aliases (kind, entity_key, alias_key);
CREATE INDEX aliases_by_canonical ON aliases (kind, entity_key, canonical_key);

-- Edits gain the kind that records an alias (rename, which a merge is too) and the alias rows they changed, each with its state
-- before and after (null: absent), so an undo puts the aliases back exactly.
CREATE TABLE fact_edits_next (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('update', 'expire', 'resolve', 'apply', 'rename')),
  fact_id INTEGER REFERENCES facts (id),
  proposal_id INTEGER,
  created TEXT NOT NULL DEFAULT '[]',
  changed TEXT NOT NULL DEFAULT '[]',
  groups TEXT NOT NULL DEFAULT '[]',
  aliases TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(aliases) AND json_type(aliases) = 'array'),
  created_at TEXT NOT NULL,
  undone_at TEXT
) STRICT;
INSERT INTO fact_edits_next (id, kind, fact_id, proposal_id, created, changed, groups, created_at, undone_at)
  SELECT id, kind, fact_id, proposal_id, created, changed, groups, created_at, undone_at FROM fact_edits;
DROP TABLE fact_edits;
ALTER TABLE fact_edits_next RENAME TO fact_edits;
