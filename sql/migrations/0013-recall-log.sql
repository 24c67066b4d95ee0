-- The ledger of per-turn recall: one row per user message recall ran for (an empty block included, so what recall
-- costs a turn is an honest average), kept to the last 5,000 (bookkeeping outside the user's memory: writing it never
-- bumps the store generation). message_id is the id of the block's message in the session (null when nothing was
-- recalled), so a later turn knows which recalled facts are still in the model's view; fact_ids lists the facts the block showed, in order, as a JSON array; chars is the
-- block's length (0 when nothing was recalled); channels the search channels that ran, degraded the semantic
-- channels that did not contribute, both JSON arrays of strings.
CREATE TABLE recall_log (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  turn INTEGER,
  message_id TEXT,
  recalled_at TEXT NOT NULL,
  fact_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(fact_ids) AND json_type(fact_ids) = 'array'),
  chars INTEGER NOT NULL DEFAULT 0 CHECK (chars >= 0),
  elapsed_ms REAL NOT NULL DEFAULT 0 CHECK (elapsed_ms >= 0),
  channels TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(channels) AND json_type(channels) = 'array'),
  degraded TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(degraded) AND json_type(degraded) = 'array')
) STRICT;
CREATE INDEX recall_log_by_session ON recall_log (session_id, turn);
CREATE INDEX recall_log_by_message ON recall_log (message_id) WHERE message_id IS NOT NULL;
