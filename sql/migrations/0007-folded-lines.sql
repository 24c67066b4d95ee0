-- Folded log lines: a write that restates a row's value but for its one calendar date updates that row in place.
-- folded_count counts the folds the row absorbed (0: never folded, so "seen folded_count + 1 times"); folded_from
-- holds the last 20 values it displaced or absorbed, as a JSON array of strings, newest last.
ALTER TABLE facts ADD COLUMN folded_count INTEGER NOT NULL DEFAULT 0 CHECK (folded_count >= 0);
ALTER TABLE facts ADD COLUMN folded_from TEXT NOT NULL DEFAULT '[]'
  CHECK (json_valid(folded_from) AND json_type(folded_from) = 'array' AND json_array_length(folded_from) <= 20);
