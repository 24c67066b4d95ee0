-- The counters on one page. Every write bumped three one-row b-trees, each a page of its own in the WAL: the store's
-- generation (store_state), the directory's counts of current facts (directory_counts) and the counts by state and
-- evidence (fact_counts). They are rows of one small table now, which fits in a single page, so a write dirties one
-- page for all of them. fact_counts and directory_counts stay readable, as views with their old columns; the
-- generation is the row ('generation', ''). The triggers keep every row equal to a fresh count, as before.

CREATE TABLE tallies (
  tally TEXT NOT NULL CHECK (tally IN ('generation', 'directory', 'facts')),
  -- '' for the generation; plain, sensitive, project_plain or project_sensitive for the directory;
  -- '<status>/<evidence>' for the facts.
  part TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (tally, part)
) STRICT, WITHOUT ROWID;

INSERT INTO tallies (tally, part, n) VALUES ('generation', '', coalesce((SELECT generation FROM store_state WHERE id = 1), 0));
INSERT INTO tallies (tally, part, n)
  SELECT 'directory', 'plain', coalesce((SELECT plain FROM directory_counts WHERE id = 1), 0)
  UNION ALL SELECT 'directory', 'sensitive', coalesce((SELECT sensitive FROM directory_counts WHERE id = 1), 0)
  UNION ALL SELECT 'directory', 'project_plain', coalesce((SELECT project_plain FROM directory_counts WHERE id = 1), 0)
  UNION ALL SELECT 'directory', 'project_sensitive', coalesce((SELECT project_sensitive FROM directory_counts WHERE id = 1), 0);
INSERT INTO tallies (tally, part, n) SELECT 'facts', status || '/' || evidence, n FROM fact_counts;

DROP TRIGGER facts_counts_after_insert;
DROP TRIGGER facts_counts_after_delete;
DROP TRIGGER facts_counts_after_update;
DROP TRIGGER facts_fact_counts_after_insert;
DROP TRIGGER facts_fact_counts_after_delete;
DROP TRIGGER facts_fact_counts_after_update;
DROP TABLE directory_counts;
DROP TABLE fact_counts;
ALTER TABLE store_state DROP COLUMN generation;

CREATE VIEW fact_counts (status, evidence, n) AS
  SELECT substr(part, 1, instr(part, '/') - 1), substr(part, instr(part, '/') + 1), n FROM tallies WHERE tally = 'facts';

CREATE VIEW directory_counts (id, plain, sensitive, project_plain, project_sensitive) AS
  SELECT 1,
    coalesce(sum(n) FILTER (WHERE part = 'plain'), 0), coalesce(sum(n) FILTER (WHERE part = 'sensitive'), 0),
    coalesce(sum(n) FILTER (WHERE part = 'project_plain'), 0), coalesce(sum(n) FILTER (WHERE part = 'project_sensitive'), 0)
  FROM tallies WHERE tally = 'directory';

-- A current fact the model may use counts in the directory: plain or sensitive, and again as a project's when its
-- scope is one. These expressions name the rows a fact counts in.
CREATE TRIGGER facts_tallies_after_insert AFTER INSERT ON facts
BEGIN
  INSERT INTO tallies (tally, part, n) VALUES ('facts', NEW.status || '/' || NEW.evidence, 1)
    ON CONFLICT (tally, part) DO UPDATE SET n = n + 1;
  UPDATE tallies SET n = n + 1
    WHERE NEW.status = 'active' AND NEW.model_use_allowed = 1 AND tally = 'directory'
      AND part IN (CASE WHEN NEW.sensitivity IS NULL THEN 'plain' ELSE 'sensitive' END,
        CASE WHEN substr(NEW.scope, 1, 8) = 'project:' THEN CASE WHEN NEW.sensitivity IS NULL THEN 'project_plain' ELSE 'project_sensitive' END END);
END;

CREATE TRIGGER facts_tallies_after_delete AFTER DELETE ON facts
BEGIN
  UPDATE tallies SET n = n - 1 WHERE tally = 'facts' AND part = OLD.status || '/' || OLD.evidence;
  UPDATE tallies SET n = n - 1
    WHERE OLD.status = 'active' AND OLD.model_use_allowed = 1 AND tally = 'directory'
      AND part IN (CASE WHEN OLD.sensitivity IS NULL THEN 'plain' ELSE 'sensitive' END,
        CASE WHEN substr(OLD.scope, 1, 8) = 'project:' THEN CASE WHEN OLD.sensitivity IS NULL THEN 'project_plain' ELSE 'project_sensitive' END END);
END;

CREATE TRIGGER facts_tallies_directory_after_update AFTER UPDATE OF status, sensitivity, model_use_allowed, scope ON facts
BEGIN
  UPDATE tallies SET n = n - 1
    WHERE OLD.status = 'active' AND OLD.model_use_allowed = 1 AND tally = 'directory'
      AND part IN (CASE WHEN OLD.sensitivity IS NULL THEN 'plain' ELSE 'sensitive' END,
        CASE WHEN substr(OLD.scope, 1, 8) = 'project:' THEN CASE WHEN OLD.sensitivity IS NULL THEN 'project_plain' ELSE 'project_sensitive' END END);
  UPDATE tallies SET n = n + 1
    WHERE NEW.status = 'active' AND NEW.model_use_allowed = 1 AND tally = 'directory'
      AND part IN (CASE WHEN NEW.sensitivity IS NULL THEN 'plain' ELSE 'sensitive' END,
        CASE WHEN substr(NEW.scope, 1, 8) = 'project:' THEN CASE WHEN NEW.sensitivity IS NULL THEN 'project_plain' ELSE 'project_sensitive' END END);
END;

CREATE TRIGGER facts_tallies_facts_after_update AFTER UPDATE OF status, evidence_rank ON facts
  WHEN OLD.status <> NEW.status OR OLD.evidence <> NEW.evidence
BEGIN
  UPDATE tallies SET n = n - 1 WHERE tally = 'facts' AND part = OLD.status || '/' || OLD.evidence;
  INSERT INTO tallies (tally, part, n) VALUES ('facts', NEW.status || '/' || NEW.evidence, 1)
    ON CONFLICT (tally, part) DO UPDATE SET n = n + 1;
END;
