-- Project scopes. A fact scoped to a project keeps the scope text project:<key>, the key being the canonical path of
-- the repository root (or, outside a repository, the working directory) its session ran in; its slot, claim and
-- evidence keys carry that key, so one property of one subject is one slot per project, while global and free-text
-- scopes keep the keys they always had. projects maps each key to the name people read (the root's folder name, or
-- the name an imported record carried) and records when a fact was first and last written under it.
-- facts_by_scope serves the page's list of scopes and the count of the session's own project's facts.
CREATE TABLE projects (
  project_key TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX facts_by_scope ON facts (scope, status);
