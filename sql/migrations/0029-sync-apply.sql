-- Applying other devices' change records (issue 34, docs/sync.md "Applying through the store"). sync_record_entities
-- indexes every kept record (own and received) by the subject (entity key) it names, so applying fresh records
-- merges only the records of the subjects they touch, never the whole log: a move names both its subjects; an alias
-- or a restore is filed under '*' (they are few, and naming resolves through all of them). Two triggers keep the
-- index as records are kept, and the records already kept are filed once here.
-- sync_apply remembers the last own record whose subject was brought to the merged outcome; sync_peer_names the
-- readable name each other device gives itself in the sync folder (device.json); sync_fact_devices, per current row
-- brought in by sync, the devices whose statements of its value stand (a conflict names the machine each side came from).
-- Every statement may run again over a store that already has these objects, and changes nothing there.
CREATE TABLE IF NOT EXISTS sync_record_entities (
  entity TEXT NOT NULL,
  op TEXT NOT NULL,
  PRIMARY KEY (entity, op)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sync_record_entities_by_op ON sync_record_entities (op);

CREATE TRIGGER IF NOT EXISTS sync_own_records_file AFTER INSERT ON sync_own_records BEGIN
  INSERT OR IGNORE INTO sync_record_entities (entity, op)
    VALUES (coalesce(json_extract(NEW.record, '$.slot.entity'), '*'), NEW.op);
  INSERT OR IGNORE INTO sync_record_entities (entity, op)
    SELECT json_extract(NEW.record, '$.to.entity'), NEW.op WHERE NEW.kind = 'move';
END;
CREATE TRIGGER IF NOT EXISTS sync_received_file AFTER INSERT ON sync_received BEGIN
  INSERT OR IGNORE INTO sync_record_entities (entity, op)
    VALUES (coalesce(json_extract(NEW.record, '$.slot.entity'), '*'), NEW.op);
  INSERT OR IGNORE INTO sync_record_entities (entity, op)
    SELECT json_extract(NEW.record, '$.to.entity'), NEW.op WHERE json_extract(NEW.record, '$.kind') = 'move';
END;

INSERT OR IGNORE INTO sync_record_entities (entity, op)
  SELECT coalesce(json_extract(record, '$.slot.entity'), '*'), op FROM sync_own_records;
INSERT OR IGNORE INTO sync_record_entities (entity, op)
  SELECT coalesce(json_extract(record, '$.slot.entity'), '*'), op FROM sync_received;
INSERT OR IGNORE INTO sync_record_entities (entity, op)
  SELECT json_extract(record, '$.to.entity'), op FROM sync_own_records WHERE kind = 'move';
INSERT OR IGNORE INTO sync_record_entities (entity, op)
  SELECT json_extract(record, '$.to.entity'), op FROM sync_received WHERE json_extract(record, '$.kind') = 'move';

CREATE TABLE IF NOT EXISTS sync_apply (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  own_seq INTEGER NOT NULL DEFAULT 0 CHECK (own_seq >= 0)
);
INSERT OR IGNORE INTO sync_apply (id, own_seq) VALUES (1, 0);

CREATE TABLE IF NOT EXISTS sync_peer_names (
  device TEXT PRIMARY KEY,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS sync_fact_devices (
  -- No foreign key: facts are never deleted, and a key here would add a look-up to every write of a fact.
  fact_id INTEGER PRIMARY KEY,
  devices TEXT NOT NULL CHECK (json_valid(devices) AND json_type(devices) = 'array')
);
