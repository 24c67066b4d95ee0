-- Tombstones hold in every scope. A forget now tombstones a fact's claim and evidence under the keys the fact would
-- have outside any project (src/text/normalize.ts tombstoneKeysOf), so a claim forgotten globally, under a label or
-- in one project is refused in every scope; the keys a row is stored under keep its project. A tombstone a forget
-- wrote before this, under a project-scoped row's own keys (its claim, its evidence, a folded value's claim), takes
-- the same key without the project, in place, so its id, its row and its date stay and undoing that forget still
-- removes it. fm_unscoped_tombstone_key is the store's SQL function for that mapping (src/store/tombstones.ts),
-- registered on every connection before migrations run; it leaves any key it cannot map as it was. Where the key
-- without the project is already held (the same claim forgotten elsewhere too), the older tombstone keeps it and this
-- one keeps its project's key. A tombstone with no row (one an import kept) is a bare hash and stays as it is: the
-- write path still checks a write's own keys beside its tombstone keys, so it blocks what it blocked.
UPDATE OR IGNORE tombstones SET key = (
    SELECT fm_unscoped_tombstone_key(json_object(
      'kind', tombstones.kind, 'key', tombstones.key, 'entityKey', e.entity_key, 'predicateKey', f.predicate_key,
      'qualifiers', json(f.qualifiers), 'value', f.value, 'quote', f.quote, 'scope', f.scope, 'foldedFrom', json(f.folded_from)))
    FROM facts f JOIN entities e ON e.id = f.entity_id WHERE f.id = tombstones.fact_id)
  WHERE fact_id IN (SELECT id FROM facts WHERE substr(scope, 1, 8) = 'project:');
