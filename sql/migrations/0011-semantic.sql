-- The semantic channels. vector_spaces holds one row per embedding fingerprint (provider, base URL, model,
-- dimension, normalization, input template): its id is the vector generation a review verdict of the vector leg is
-- remembered under, dim is fixed by the first vector stored in it, and version counts every change to its vectors
-- so that an in-memory scan index (in this process or another one sharing the file) knows when to reload;
-- vector_count is the number of its fact_vectors rows, kept by triggers in the transaction of every insert and
-- delete (a foreign-key cascade included), so that index reads it from this one row instead of counting.
-- fact_vectors holds one vector per fact and space, quantized: int8 components with one scale (the rescoring) and
-- the sign bits (the coarse scan), about 1.2 KiB at 1024 dimensions. text_hash is the hash of the embedded text, so
-- a change of status alone needs no new vector; revision is the fact's revision when the vector was last checked.
-- Its rowid is AUTOINCREMENT: a replaced or new vector always gets a rowid above every one ever used, so an index
-- that loaded the rows up to some rowid finds every later change by reading the rows after it.
-- rerank_calibrations is the ledger of calibrations: the newest calibrated row of a rerank fingerprint is the record
-- that lets the reranker filter. All three are bookkeeping: writing them never moves the store generation.
CREATE TABLE vector_spaces (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  provider TEXT NOT NULL,
  base_url TEXT NOT NULL,
  model TEXT NOT NULL,
  dim INTEGER NOT NULL DEFAULT 0 CHECK (dim >= 0),
  version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
  vector_count INTEGER NOT NULL DEFAULT 0 CHECK (vector_count >= 0),
  last_sweep TEXT CHECK (last_sweep IS NULL OR json_valid(last_sweep)),
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE fact_vectors (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  space_id INTEGER NOT NULL REFERENCES vector_spaces (id) ON DELETE CASCADE,
  fact_id INTEGER NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
  revision INTEGER NOT NULL CHECK (revision >= 1),
  text_hash TEXT NOT NULL,
  scale REAL NOT NULL CHECK (scale >= 0),
  bits BLOB NOT NULL,
  quantized BLOB NOT NULL,
  embedded_at TEXT NOT NULL,
  UNIQUE (space_id, fact_id)
) STRICT;
CREATE INDEX fact_vectors_by_fact ON fact_vectors (fact_id);
CREATE TRIGGER fact_vectors_count_insert AFTER INSERT ON fact_vectors BEGIN
  UPDATE vector_spaces SET vector_count = vector_count + 1, version = version + 1 WHERE id = NEW.space_id;
END;
CREATE TRIGGER fact_vectors_count_delete AFTER DELETE ON fact_vectors BEGIN
  UPDATE vector_spaces SET vector_count = vector_count - 1, version = version + 1 WHERE id = OLD.space_id;
END;
CREATE TRIGGER fact_vectors_count_move AFTER UPDATE OF space_id ON fact_vectors BEGIN
  UPDATE vector_spaces SET vector_count = vector_count - 1, version = version + 1 WHERE id = OLD.space_id;
  UPDATE vector_spaces SET vector_count = vector_count + 1, version = version + 1 WHERE id = NEW.space_id;
END;

CREATE TABLE rerank_calibrations (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('calibrated', 'refused')),
  pair_source TEXT NOT NULL CHECK (pair_source IN ('supplied', 'library')),
  relevant INTEGER NOT NULL CHECK (relevant >= 0),
  irrelevant INTEGER NOT NULL CHECK (irrelevant >= 0),
  threshold REAL,
  precision REAL CHECK (precision IS NULL OR precision BETWEEN 0 AND 1),
  recall REAL CHECK (recall IS NULL OR recall BETWEEN 0 AND 1),
  reason TEXT,
  created_at TEXT NOT NULL,
  CHECK (outcome = 'refused' OR (threshold IS NOT NULL AND precision IS NOT NULL AND recall IS NOT NULL))
) STRICT;
CREATE INDEX rerank_calibrations_by_fingerprint ON rerank_calibrations (fingerprint, id);

-- The sweep a write asks for reads only the facts changed lately.
CREATE INDEX facts_by_updated ON facts (updated_at);
