-- Sync rounds that read only what is new (issue 34, docs/sync.md "The store's log"). sync_pending counts this
-- device's own records not yet sealed (after the published watermark), plain and sensitive apart (a sensitive one
-- leaves the machine only when the user opted in): a trigger counts each record as it is appended, and marking
-- records published counts again what is left after the new mark, so the status polled every few seconds never
-- reads the log. sync_cursors holds the read cursor per sync target and device: the last segment of that device
-- read cleanly in that folder or remote, so a target switched to is read from its own start, never from another
-- target's cursor. The cursors kept so far belong to the target last synced to (store_meta `sync_target`).
-- Every statement may run again over a store that already has these objects, and changes nothing there.
CREATE TABLE IF NOT EXISTS sync_pending (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  plain INTEGER NOT NULL DEFAULT 0 CHECK (plain >= 0),
  sensitive INTEGER NOT NULL DEFAULT 0 CHECK (sensitive >= 0)
);
INSERT OR IGNORE INTO sync_pending (id, plain, sensitive)
  SELECT 1, coalesce(sum(sensitive = 0), 0), coalesce(sum(sensitive = 1), 0) FROM sync_own_records
  WHERE hlc > coalesce((SELECT published_through FROM sync_device WHERE id = 1), '');

CREATE TRIGGER IF NOT EXISTS sync_own_records_pending AFTER INSERT ON sync_own_records
  WHEN NEW.hlc > coalesce((SELECT published_through FROM sync_device WHERE id = 1), '')
BEGIN
  UPDATE sync_pending SET plain = plain + (NEW.sensitive = 0), sensitive = sensitive + (NEW.sensitive = 1)
    WHERE id = 1;
END;

CREATE TABLE IF NOT EXISTS sync_cursors (
  target TEXT NOT NULL,
  device TEXT NOT NULL,
  seq INTEGER NOT NULL CHECK (seq >= 0),
  PRIMARY KEY (target, device)
) WITHOUT ROWID;
INSERT OR IGNORE INTO sync_cursors (target, device, seq)
  SELECT coalesce((SELECT value FROM store_meta WHERE key = 'sync_target'), ''), device, cursor
  FROM sync_peers WHERE cursor IS NOT NULL;
