-- The changes review cards hold, indexed, so a sweep, an audit and a held-change check read row keys instead of
-- parsing every card's JSON: one row per row key of a pending review card (state 'pending'), and one per change the
-- user declined (the rows of a rejected card, rows struck from a card, the fingerprint of a rejected add_fact card;
-- state 'declined'). A declined row outlives its card, so pruning decided cards never lets a declined change be
-- proposed again; proposal_id names the card it came from (kept, not a foreign key, once the card is pruned).
-- Filled from the cards by the store on first use (a store migrated from an older version has cards already).
CREATE TABLE proposal_changes (
  kind TEXT NOT NULL CHECK (kind IN ('add_fact', 'merge', 'retire', 'fold', 'alias')),
  change_key TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'declined')),
  proposal_id INTEGER NOT NULL,
  decided_at TEXT,
  PRIMARY KEY (kind, change_key, state, proposal_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX proposal_changes_by_card ON proposal_changes (proposal_id);
