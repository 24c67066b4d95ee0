-- Sync recording, second slice (issue 34, docs/sync.md). sync_snapshot holds the snapshot that turning sync on
-- writes, while it is being written in slices: the highest fact id it covers (rows made later are recorded as they
-- are made), the last fact id already written (each slice commits its records and this cursor together, so a crash
-- resumes after the last committed slice and records nothing twice), and the seq of the last own record before it
-- started (a value recorded live since is not written again). The row is removed when the snapshot is complete.
-- sync_edit_ops links a reversible edit (fact_edits) to the own records it appended, so its undo can name them in a
-- `restore` record. Every statement may run again over a store that already has these tables.
CREATE TABLE IF NOT EXISTS sync_snapshot (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  through_id INTEGER NOT NULL,
  after_id INTEGER NOT NULL,
  start_seq INTEGER NOT NULL,
  records INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS sync_edit_ops (
  edit_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (edit_id, seq)
) WITHOUT ROWID;
