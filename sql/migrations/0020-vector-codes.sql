-- Vector codes in blocks, so a process loads every sign code of a space in one pass, and smaller vector rows.
-- Each vector of a space has a slot; vector_blocks holds the slots of a space block_slots at a time (64 unless a space
-- says otherwise), each block with the fact id of every slot (4 bytes little-endian, 0 for a slot never used) and
-- the sign bits of every slot (ceil(dim / 8) bytes), in slot order; its version is the space's version when it was
-- last written, so an index that loaded the space at some version reads only the blocks written since.
-- vector_free_slots lists the slots whose vector was deleted (a prune, "Clear everything", a foreign-key cascade from
-- facts): the delete trigger adds them, an insert into one takes it back, and an index reading the blocks skips them.
-- slot_count is one past the highest slot ever given in the space (reset by "Clear everything").
-- fact_vectors keeps, per fact and space, the slot, the revision checked, the text hash (SHA-256 as 32 bytes), the
-- scale and the magnitudes of the int8 components, seven bits each (src/store/vector-codec.ts): the signs are the
-- sign bits in the block, so the int8 vector is read back exactly from the two. fm_vector_magnitudes is the store's
-- SQL function for that packing, registered on every connection before migrations run. Replacing a vector keeps its
-- row and slot. Its one index, UNIQUE (fact_id, space_id), serves the cascade from facts as well as every lookup by
-- space and fact; the rowid stays an alias without AUTOINCREMENT, as nothing reads rows by rowid order any more.
-- Existing vectors keep their values: each space's rows take slots in rowid order, and their blocks are built from
-- the sign bits they held. A text hash that is not 64 hex digits becomes 32 zero bytes, which no text hashes to, so
-- the sweep embeds that fact again. The rows are rewritten whole, so the file is compacted after.
-- compact: vacuum after
ALTER TABLE vector_spaces ADD COLUMN block_slots INTEGER NOT NULL DEFAULT 64 CHECK (block_slots > 0);
ALTER TABLE vector_spaces ADD COLUMN slot_count INTEGER NOT NULL DEFAULT 0 CHECK (slot_count >= 0);

CREATE TABLE fact_vectors_next (
  id INTEGER PRIMARY KEY,
  space_id INTEGER NOT NULL REFERENCES vector_spaces (id) ON DELETE CASCADE,
  fact_id INTEGER NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
  slot INTEGER NOT NULL CHECK (slot >= 0),
  revision INTEGER NOT NULL CHECK (revision >= 1),
  text_hash BLOB NOT NULL CHECK (length(text_hash) = 32),
  scale REAL NOT NULL CHECK (scale >= 0),
  magnitudes BLOB NOT NULL,
  embedded_at TEXT NOT NULL,
  UNIQUE (fact_id, space_id)
) STRICT;
INSERT INTO fact_vectors_next (id, space_id, fact_id, slot, revision, text_hash, scale, magnitudes, embedded_at)
  SELECT id, space_id, fact_id, row_number() OVER (PARTITION BY space_id ORDER BY id) - 1, revision,
      CASE WHEN length(text_hash) = 64 AND unhex(text_hash) IS NOT NULL THEN unhex(text_hash) ELSE zeroblob(32) END,
      scale, fm_vector_magnitudes(quantized), embedded_at
    FROM fact_vectors;

UPDATE vector_spaces SET version = version + 1,
  slot_count = (SELECT count(*) FROM fact_vectors_next v WHERE v.space_id = vector_spaces.id);

CREATE TABLE vector_blocks (
  id INTEGER PRIMARY KEY,
  space_id INTEGER NOT NULL REFERENCES vector_spaces (id) ON DELETE CASCADE,
  block_no INTEGER NOT NULL CHECK (block_no >= 0),
  version INTEGER NOT NULL CHECK (version >= 0),
  fact_ids BLOB NOT NULL,
  codes BLOB NOT NULL,
  UNIQUE (space_id, block_no)
) STRICT;
CREATE INDEX vector_blocks_by_version ON vector_blocks (space_id, version);
INSERT INTO vector_blocks (space_id, block_no, version, fact_ids, codes)
  SELECT n.space_id, n.slot / s.block_slots, s.version,
      unhex(group_concat(printf('%02X%02X%02X%02X', n.fact_id & 255, (n.fact_id >> 8) & 255, (n.fact_id >> 16) & 255, (n.fact_id >> 24) & 255), '' ORDER BY n.slot)),
      unhex(group_concat(hex(o.bits), '' ORDER BY n.slot))
    FROM fact_vectors_next n JOIN fact_vectors o ON o.id = n.id JOIN vector_spaces s ON s.id = n.space_id
    GROUP BY n.space_id, n.slot / s.block_slots;

CREATE TABLE vector_free_slots (
  space_id INTEGER NOT NULL REFERENCES vector_spaces (id) ON DELETE CASCADE,
  slot INTEGER NOT NULL CHECK (slot >= 0),
  PRIMARY KEY (space_id, slot)
) STRICT, WITHOUT ROWID;

DROP TABLE fact_vectors;
ALTER TABLE fact_vectors_next RENAME TO fact_vectors;

-- A new vector takes a free slot or the next one, never a slot in use.
CREATE TRIGGER fact_vectors_slot_check BEFORE INSERT ON fact_vectors
  WHEN NEW.slot <> (SELECT slot_count FROM vector_spaces WHERE id = NEW.space_id)
    AND NOT EXISTS (SELECT 1 FROM vector_free_slots WHERE space_id = NEW.space_id AND slot = NEW.slot)
BEGIN
  SELECT RAISE(ABORT, 'vector slot in use');
END;
CREATE TRIGGER fact_vectors_count_insert AFTER INSERT ON fact_vectors BEGIN
  DELETE FROM vector_free_slots WHERE space_id = NEW.space_id AND slot = NEW.slot;
  UPDATE vector_spaces SET vector_count = vector_count + 1, version = version + 1, slot_count = max(slot_count, NEW.slot + 1)
    WHERE id = NEW.space_id;
END;
-- When the space itself is being deleted its slots go with it (its blocks and free slots cascade).
CREATE TRIGGER fact_vectors_count_delete AFTER DELETE ON fact_vectors BEGIN
  UPDATE vector_spaces SET vector_count = vector_count - 1, version = version + 1 WHERE id = OLD.space_id;
  INSERT INTO vector_free_slots (space_id, slot)
    SELECT OLD.space_id, OLD.slot WHERE EXISTS (SELECT 1 FROM vector_spaces WHERE id = OLD.space_id);
END;
-- A vector keeps its space, fact and slot: its code sits in that slot's block.
CREATE TRIGGER fact_vectors_slot_fixed BEFORE UPDATE OF space_id, fact_id, slot ON fact_vectors
  WHEN NEW.space_id <> OLD.space_id OR NEW.fact_id <> OLD.fact_id OR NEW.slot <> OLD.slot
BEGIN
  SELECT RAISE(ABORT, 'a vector keeps its space, fact and slot');
END;
