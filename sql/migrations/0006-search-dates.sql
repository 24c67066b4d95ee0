-- The search's date channel reads the facts dated within a window a query names ("on 3 June, 2023"): index the
-- instant each value took effect.
CREATE INDEX facts_by_valid_from ON facts (valid_from);
