-- The store side of sync (issue 34, docs/sync.md). One row names this device: a stable id made once per store (16
-- random hex digits), a readable name (NULL: the host name, until the user names the device), the hybrid logical
-- clock's last reading, when recording was turned on (NULL: off, nothing is recorded), whether sensitive facts may
-- leave the machine (off by default) and the clock of the last own record sealed into a segment. sync_own_records is
-- this device's change log, appended inside each change's own transaction; sync_received keeps every record read
-- from other devices, one row per operation id; sync_peers holds, per other device, the last segment read cleanly
-- (the cursor) and the clock of the last of its records applied here (the `seen` a new change carries).
-- Every statement may run again over a store that already has these tables (a store whose version was set back),
-- and changes nothing there.
CREATE TABLE IF NOT EXISTS sync_device (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  device_id TEXT NOT NULL CHECK (device_id GLOB '[a-z0-9]*' AND length(device_id) BETWEEN 1 AND 64),
  name TEXT CHECK (name IS NULL OR length(name) BETWEEN 1 AND 200),
  clock TEXT,
  recording_since TEXT,
  include_sensitive INTEGER NOT NULL DEFAULT 0 CHECK (include_sensitive IN (0, 1)),
  published_through TEXT
);
INSERT OR IGNORE INTO sync_device (id, device_id) VALUES (1, lower(hex(randomblob(8))));

CREATE TABLE IF NOT EXISTS sync_own_records (
  seq INTEGER PRIMARY KEY,
  op TEXT NOT NULL UNIQUE,
  hlc TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('write', 'supersede', 'settle', 'forget', 'pin', 'alias', 'move', 'put_back', 'restore')),
  slot_key BLOB,
  claim_key BLOB,
  -- 1: the record names a sensitive value; it leaves the machine only when include_sensitive is set.
  sensitive INTEGER NOT NULL DEFAULT 0 CHECK (sensitive IN (0, 1)),
  -- The sensitive values its `ends` name (a JSON array), left out of what leaves the machine unless opted in.
  sensitive_ends TEXT CHECK (sensitive_ends IS NULL OR json_valid(sensitive_ends)),
  record TEXT NOT NULL CHECK (json_valid(record))
);
CREATE INDEX IF NOT EXISTS sync_own_records_by_clock ON sync_own_records (hlc);
CREATE INDEX IF NOT EXISTS sync_own_records_by_slot ON sync_own_records (slot_key) WHERE slot_key IS NOT NULL;

CREATE TABLE IF NOT EXISTS sync_received (
  op TEXT PRIMARY KEY,
  device TEXT NOT NULL,
  hlc TEXT NOT NULL,
  record TEXT NOT NULL CHECK (json_valid(record))
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sync_received_by_device ON sync_received (device, hlc);

CREATE TABLE IF NOT EXISTS sync_peers (
  device TEXT PRIMARY KEY,
  cursor INTEGER CHECK (cursor IS NULL OR cursor >= 0),
  seen TEXT
) WITHOUT ROWID;
