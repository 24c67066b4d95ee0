-- The run log keeps credentials masked: a refused candidate's value and the secrets in the text a pass sent. SQL
-- cannot run the privacy scan, so this marks every row logged so far as not yet masked; the store masks those rows
-- once when it opens (ExtractStore.maskOldRuns) and writes every new row masked.
ALTER TABLE extract_runs ADD COLUMN masked INTEGER NOT NULL DEFAULT 0 CHECK (masked IN (0, 1));
