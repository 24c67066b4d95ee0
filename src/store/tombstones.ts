/**
 * Tombstones: the keys a forget holds a fact's claim and evidence under, and the check every write path makes against
 * them. A tombstone leaves the project out (normalize.ts tombstoneKeysOf), so a claim forgotten in any scope is
 * refused in every scope; a write is also checked under its own keys, which is where a tombstone written before
 * migration 0026 (a project's, kept from a file) still blocks. Runs inside the caller's transaction.
 */
import { projectKeyOfScope } from '../project/project-ref.ts'
import {
  canonicalQualifiers,
  canonicalValue,
  claimKeyOf,
  evidenceKeyOf,
  tombstoneKeysOf,
  type TombstoneKeys,
} from '../text/normalize.ts'
import type { Fact } from '../types.ts'
import type { Database } from './database.ts'
import { priorClaimKeys } from './fact-folds.ts'

/** What a write is checked under: its own claim and evidence keys, and its tombstone keys. */
export interface CheckedKeys {
  readonly claimKey: string
  readonly evidenceKey: string
  readonly tombstoneKeys: TombstoneKeys
}

/** The tombstone a write meets. */
export interface TombstoneHit {
  readonly kind: 'claim' | 'evidence'
  /** When the claim or evidence was forgotten (ISO). */
  readonly forgottenAt: string
}

/**
 * The oldest tombstone that blocks a write: its claim or its evidence forgotten in any scope.
 * @param db - the open database.
 * @param keys - the write's keys.
 * @returns the tombstone, or undefined when the write is free.
 */
export function findTombstone(db: Database, keys: CheckedKeys): TombstoneHit | undefined {
  const row = db.get(
    `SELECT kind, created_at FROM tombstones WHERE (kind = 'claim' AND key IN (?, ?)) OR (kind = 'evidence' AND key IN (?, ?))
    ORDER BY id LIMIT 1`,
    keys.tombstoneKeys.claim,
    keys.claimKey,
    keys.tombstoneKeys.evidence,
    keys.evidenceKey,
  )
  if (row === undefined) return undefined
  return { kind: row['kind'] === 'evidence' ? 'evidence' : 'claim', forgottenAt: String(row['created_at']) }
}

/**
 * The sentence a write refused by a tombstone answers with.
 * @param hit - the tombstone.
 * @returns the sentence.
 */
export function tombstoneMessage(hit: TombstoneHit): string {
  return `this ${hit.kind} was forgotten at the user's request (${hit.forgottenAt.slice(0, 10)}); it cannot be written back in any scope`
}

/**
 * The tombstones a forgotten row leaves: its claim, its evidence and the claims of the prior values a fold kept, each
 * under the key it has outside any project. A global or labelled row's are its own stored keys.
 * @param fact - the row.
 * @returns kind and key of each, claim first.
 */
export function tombstonesOfFact(fact: Fact): { readonly kind: 'claim' | 'evidence'; readonly key: string }[] {
  const keys: TombstoneKeys =
    projectKeyOfScope(fact.scope) === null
      ? { claim: fact.claimKey, evidence: evidenceKeyOf(fact.quote, fact.claimKey) }
      : tombstoneKeysOf(
          fact.entityKey,
          fact.predicateKey,
          canonicalQualifiers(fact.qualifiers),
          canonicalValue(fact.value),
          fact.quote,
        )
  return [
    { kind: 'claim', key: keys.claim },
    { kind: 'evidence', key: keys.evidence },
    ...priorClaimKeys(fact, null).map((key) => ({ kind: 'claim' as const, key })),
  ]
}

/**
 * Tombstone a forgotten row (see {@link tombstonesOfFact}); a key already held keeps its older tombstone.
 * @param db - the open database, inside a transaction.
 * @param fact - the row.
 * @param now - ISO instant.
 */
export function tombstoneFact(db: Database, fact: Fact, now: string): void {
  for (const { kind, key } of tombstonesOfFact(fact)) {
    db.run(
      'INSERT OR IGNORE INTO tombstones (kind, key, fact_id, created_at) VALUES (?, ?, ?, ?)',
      kind,
      key,
      fact.id,
      now,
    )
  }
}

/** A tombstone of a stored row as migration 0026 reads it (see {@link unscopedTombstoneKey}). */
export interface StoredTombstone {
  readonly kind: 'claim' | 'evidence'
  readonly key: string
  readonly entityKey: string
  readonly predicateKey: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly value: string
  readonly quote: string | null
  readonly scope: string
  /** The prior values a fold kept. */
  readonly foldedFrom: readonly string[]
}

/**
 * The key a tombstone written before migration 0026 takes: where it is one of the keys its project-scoped row had
 * under its project (claim, evidence or a folded value's claim), the same key without the project; any other key
 * (a global row's, a key of the row's former project) as it was.
 * @param stored - the tombstone and its row.
 * @returns the key to keep.
 */
export function unscopedTombstoneKey(stored: StoredTombstone): string {
  const projectKey = projectKeyOfScope(stored.scope)
  if (projectKey === null) return stored.key
  const qualifierKey = canonicalQualifiers(stored.qualifiers)
  const claimOf = (value: string, project: string | null): string =>
    claimKeyOf(stored.entityKey, stored.predicateKey, qualifierKey, canonicalValue(value), project)
  const scoped = claimOf(stored.value, projectKey)
  const unscoped = claimOf(stored.value, null)
  if (stored.kind === 'evidence') {
    return stored.key === evidenceKeyOf(stored.quote, scoped, projectKey)
      ? evidenceKeyOf(stored.quote, unscoped)
      : stored.key
  }
  if (stored.key === scoped) return unscoped
  const prior = stored.foldedFrom.find((value) => claimOf(value, projectKey) === stored.key)
  return prior === undefined ? stored.key : claimOf(prior, null)
}
