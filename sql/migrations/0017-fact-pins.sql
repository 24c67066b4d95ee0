-- Pins: the user (from the page, never the model) marks a fact to lead the directory. pinned_at is the instant of
-- the pin, NULL when the fact is not pinned; the pin belongs to this one row, so a value that supersedes it starts
-- unpinned. A pin on a row that has left the current set is kept but inert (the directory lists active rows only),
-- so an undo that makes the row current again brings its pin back with it. Pinned rows are few: the partial index
-- lets the directory read them in pin order without touching the rest.
ALTER TABLE facts ADD COLUMN pinned_at TEXT CHECK (pinned_at IS NULL OR length(pinned_at) BETWEEN 10 AND 40);

CREATE INDEX facts_pinned ON facts (pinned_at, id) WHERE pinned_at IS NOT NULL;
