-- Applying reads only the records its subjects need (issue 34, docs/sync.md "Applying through the store"). Until now
-- every alias and every restore was filed under '*' in sync_record_entities, so every receive read all of them and
-- its time grew with the whole log. Now a subject's alias is filed under the subjects it names (a rename under the old
-- and the new name) and a property's alias under its subject, so a receive finds the aliases of its subjects by the
-- index; a project's alias (it touches every subject) and a record naming no subject stay under '*'. A restore is
-- filed in sync_record_undoes by each operation it undoes, so a receive reads the restores of the records it merges.
-- The triggers are replaced, and the records already kept are filed again here.
-- Every statement may run again over a store that already has these objects, and changes nothing there.
CREATE TABLE IF NOT EXISTS sync_record_undoes (
  undone TEXT NOT NULL,
  op TEXT NOT NULL,
  PRIMARY KEY (undone, op)
) WITHOUT ROWID;

DROP TRIGGER IF EXISTS sync_own_records_file;
DROP TRIGGER IF EXISTS sync_received_file;
CREATE TRIGGER sync_own_records_file AFTER INSERT ON sync_own_records BEGIN
  INSERT OR IGNORE INTO sync_record_entities (entity, op)
    SELECT subject, NEW.op FROM (
      SELECT json_extract(NEW.record, '$.slot.entity') AS subject
      UNION SELECT json_extract(NEW.record, '$.to.entity') WHERE json_extract(NEW.record, '$.kind') = 'move'
      UNION SELECT json_extract(NEW.record, '$.from') WHERE json_extract(NEW.record, '$.aliasKind') = 'entity'
      UNION SELECT json_extract(NEW.record, '$.to') WHERE json_extract(NEW.record, '$.aliasKind') = 'entity'
      UNION SELECT coalesce(json_extract(NEW.record, '$.entity'), '')
        WHERE json_extract(NEW.record, '$.aliasKind') = 'predicate'
      UNION SELECT '*' WHERE json_extract(NEW.record, '$.slot.entity') IS NULL
        AND coalesce(json_extract(NEW.record, '$.kind'), '') <> 'restore'
        AND coalesce(json_extract(NEW.record, '$.aliasKind'), '') NOT IN ('entity', 'predicate')
    ) WHERE subject IS NOT NULL;
  INSERT OR IGNORE INTO sync_record_undoes (undone, op)
    SELECT value, NEW.op FROM json_each(NEW.record, '$.undoes') WHERE json_extract(NEW.record, '$.kind') = 'restore';
END;
CREATE TRIGGER sync_received_file AFTER INSERT ON sync_received BEGIN
  INSERT OR IGNORE INTO sync_record_entities (entity, op)
    SELECT subject, NEW.op FROM (
      SELECT json_extract(NEW.record, '$.slot.entity') AS subject
      UNION SELECT json_extract(NEW.record, '$.to.entity') WHERE json_extract(NEW.record, '$.kind') = 'move'
      UNION SELECT json_extract(NEW.record, '$.from') WHERE json_extract(NEW.record, '$.aliasKind') = 'entity'
      UNION SELECT json_extract(NEW.record, '$.to') WHERE json_extract(NEW.record, '$.aliasKind') = 'entity'
      UNION SELECT coalesce(json_extract(NEW.record, '$.entity'), '')
        WHERE json_extract(NEW.record, '$.aliasKind') = 'predicate'
      UNION SELECT '*' WHERE json_extract(NEW.record, '$.slot.entity') IS NULL
        AND coalesce(json_extract(NEW.record, '$.kind'), '') <> 'restore'
        AND coalesce(json_extract(NEW.record, '$.aliasKind'), '') NOT IN ('entity', 'predicate')
    ) WHERE subject IS NOT NULL;
  INSERT OR IGNORE INTO sync_record_undoes (undone, op)
    SELECT value, NEW.op FROM json_each(NEW.record, '$.undoes') WHERE json_extract(NEW.record, '$.kind') = 'restore';
END;

-- The records already kept: subject and property aliases and restores leave '*' and are filed as above.
DELETE FROM sync_record_entities WHERE entity = '*' AND op IN (
  SELECT op FROM sync_own_records WHERE json_extract(record, '$.kind') = 'restore'
    OR json_extract(record, '$.aliasKind') IN ('entity', 'predicate')
  UNION ALL
  SELECT op FROM sync_received WHERE json_extract(record, '$.kind') = 'restore'
    OR json_extract(record, '$.aliasKind') IN ('entity', 'predicate')
);
INSERT OR IGNORE INTO sync_record_entities (entity, op)
  SELECT json_extract(record, '$.from'), op FROM sync_own_records WHERE json_extract(record, '$.aliasKind') = 'entity'
  UNION ALL
  SELECT json_extract(record, '$.to'), op FROM sync_own_records WHERE json_extract(record, '$.aliasKind') = 'entity'
  UNION ALL
  SELECT coalesce(json_extract(record, '$.entity'), ''), op FROM sync_own_records
    WHERE json_extract(record, '$.aliasKind') = 'predicate'
  UNION ALL
  SELECT json_extract(record, '$.from'), op FROM sync_received WHERE json_extract(record, '$.aliasKind') = 'entity'
  UNION ALL
  SELECT json_extract(record, '$.to'), op FROM sync_received WHERE json_extract(record, '$.aliasKind') = 'entity'
  UNION ALL
  SELECT coalesce(json_extract(record, '$.entity'), ''), op FROM sync_received
    WHERE json_extract(record, '$.aliasKind') = 'predicate';
INSERT OR IGNORE INTO sync_record_undoes (undone, op)
  SELECT undone.value, own.op FROM sync_own_records own, json_each(own.record, '$.undoes') undone
    WHERE json_extract(own.record, '$.kind') = 'restore'
  UNION ALL
  SELECT undone.value, received.op FROM sync_received received, json_each(received.record, '$.undoes') undone
    WHERE json_extract(received.record, '$.kind') = 'restore';
