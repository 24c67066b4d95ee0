-- Three more kinds of change record (issue 34, docs/sync.md "Records"): `unalias` (an alias removed), `display` (a
-- subject or property shown under a new spelling of the same key) and `tombstone` (an import's tombstones of claims
-- this store never held, as bare keys). The kind CHECK of sync_own_records names the closed set, so the table is
-- rebuilt with the wider one: every row is copied as it is (seq, op, clock, kind, keys, marks, record), the old
-- table dropped with its triggers, the new one renamed into place, and its indexes and both triggers made again as
-- migrations 0027, 0029 and 0030 made them. The pending count and the subject index are other tables and stay.
-- The migration runs in one transaction, so a crash leaves version 30 whole; run again over a migrated store, it
-- copies the same rows into the same shape.
DROP TABLE IF EXISTS sync_own_records_next;
CREATE TABLE sync_own_records_next (
  seq INTEGER PRIMARY KEY,
  op TEXT NOT NULL UNIQUE,
  hlc TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('write', 'supersede', 'settle', 'forget', 'pin', 'alias', 'move', 'put_back',
    'restore', 'unalias', 'display', 'tombstone')),
  slot_key BLOB,
  claim_key BLOB,
  -- 1: the record names a sensitive value; it leaves the machine only when include_sensitive is set.
  sensitive INTEGER NOT NULL DEFAULT 0 CHECK (sensitive IN (0, 1)),
  -- The sensitive values its `ends` name (a JSON array), left out of what leaves the machine unless opted in.
  sensitive_ends TEXT CHECK (sensitive_ends IS NULL OR json_valid(sensitive_ends)),
  record TEXT NOT NULL CHECK (json_valid(record))
);
INSERT INTO sync_own_records_next (seq, op, hlc, kind, slot_key, claim_key, sensitive, sensitive_ends, record)
  SELECT seq, op, hlc, kind, slot_key, claim_key, sensitive, sensitive_ends, record FROM sync_own_records ORDER BY seq;
DROP TABLE sync_own_records;
ALTER TABLE sync_own_records_next RENAME TO sync_own_records;
CREATE INDEX sync_own_records_by_clock ON sync_own_records (hlc);
CREATE INDEX sync_own_records_by_slot ON sync_own_records (slot_key) WHERE slot_key IS NOT NULL;

CREATE TRIGGER sync_own_records_file AFTER INSERT ON sync_own_records BEGIN
  INSERT OR IGNORE INTO sync_record_entities (entity, op)
    VALUES (coalesce(json_extract(NEW.record, '$.slot.entity'), '*'), NEW.op);
  INSERT OR IGNORE INTO sync_record_entities (entity, op)
    SELECT json_extract(NEW.record, '$.to.entity'), NEW.op WHERE NEW.kind = 'move';
END;
CREATE TRIGGER sync_own_records_pending AFTER INSERT ON sync_own_records
  WHEN NEW.hlc > coalesce((SELECT published_through FROM sync_device WHERE id = 1), '')
BEGIN
  UPDATE sync_pending SET plain = plain + (NEW.sensitive = 0), sensitive = sensitive + (NEW.sensitive = 1)
    WHERE id = 1;
END;
