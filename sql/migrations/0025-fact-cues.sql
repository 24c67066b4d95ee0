-- Cues: up to 8 short phrases, in English and Chinese, that the writer (the model, an extraction, the user on the
-- page) expects a later request needing the fact to use ("run the tests", "跑测试"). NULL when a fact has none, a JSON
-- array otherwise. Cues are never part of the fact's value: they are indexed on their own, in a full-text table of
-- their own, so a match on a cue ranks in its own channel below a match on the fact's words, and the statistics the
-- text channel plans with stay those of the facts' own words. Like facts_fts, the table holds every fact that is not
-- forgotten and has cues.
ALTER TABLE facts ADD COLUMN cues TEXT CHECK (cues IS NULL OR (json_valid(cues) AND json_type(cues) = 'array' AND json_array_length(cues) BETWEEN 1 AND 8));

CREATE VIRTUAL TABLE fact_cues_fts USING fts5 (terms, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO fact_cues_fts (fact_cues_fts, rank) VALUES ('pgsz', 2000);
