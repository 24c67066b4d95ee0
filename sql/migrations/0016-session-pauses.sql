-- Sessions the user paused memory in (the session header's "Pause in this session"): while a row says 'paused', the
-- session gets no capture, no extraction, no per-turn recall and no directory, and the memory tools answer that
-- memory is paused. told says whether the model has been told of the latest change (once, in one line); a 'resumed'
-- row only waits to tell the model memory is back, and goes once it has. Bookkeeping: it never moves the generation.
CREATE TABLE session_pauses (
  session_id TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('paused', 'resumed')),
  changed_at TEXT NOT NULL,
  told INTEGER NOT NULL DEFAULT 0 CHECK (told IN (0, 1))
) STRICT;
