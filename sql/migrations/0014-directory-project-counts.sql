-- The directory counts what it could list, which leaves out other projects' facts. Counting those on every directory
-- rebuild walked every project fact of every status; instead the kept counts also hold how many of the active,
-- model-visible facts are in a project scope (project_plain, project_sensitive), so a directory counts the global and
-- free-text facts from this row and seeks only its own project's facts. The triggers that keep the row now also follow
-- a fact's scope (a move between scopes).
ALTER TABLE directory_counts ADD COLUMN project_plain INTEGER NOT NULL DEFAULT 0;
ALTER TABLE directory_counts ADD COLUMN project_sensitive INTEGER NOT NULL DEFAULT 0;

UPDATE directory_counts SET
  project_plain = (SELECT count(*) FROM facts
    WHERE status = 'active' AND model_use_allowed = 1 AND sensitivity IS NULL AND substr(scope, 1, 8) = 'project:'),
  project_sensitive = (SELECT count(*) FROM facts
    WHERE status = 'active' AND model_use_allowed = 1 AND sensitivity IS NOT NULL AND substr(scope, 1, 8) = 'project:')
  WHERE id = 1;

DROP TRIGGER facts_counts_after_insert;
DROP TRIGGER facts_counts_after_update;
DROP TRIGGER facts_counts_after_delete;

CREATE TRIGGER facts_counts_after_insert AFTER INSERT ON facts
  WHEN NEW.status = 'active' AND NEW.model_use_allowed = 1
BEGIN
  UPDATE directory_counts SET
    plain = plain + (NEW.sensitivity IS NULL),
    sensitive = sensitive + (NEW.sensitivity IS NOT NULL),
    project_plain = project_plain + (NEW.sensitivity IS NULL AND substr(NEW.scope, 1, 8) = 'project:'),
    project_sensitive = project_sensitive + (NEW.sensitivity IS NOT NULL AND substr(NEW.scope, 1, 8) = 'project:')
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

CREATE TRIGGER facts_counts_after_delete AFTER DELETE ON facts
  WHEN OLD.status = 'active' AND OLD.model_use_allowed = 1
BEGIN
  UPDATE directory_counts SET
    plain = plain - (OLD.sensitivity IS NULL),
    sensitive = sensitive - (OLD.sensitivity IS NOT NULL),
    project_plain = project_plain - (OLD.sensitivity IS NULL AND substr(OLD.scope, 1, 8) = 'project:'),
    project_sensitive = project_sensitive - (OLD.sensitivity IS NOT NULL AND substr(OLD.scope, 1, 8) = 'project:')
    WHERE id = 1;
END;
