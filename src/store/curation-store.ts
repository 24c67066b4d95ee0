/**
 * CurationStore: the writes an accepted review card makes to facts already stored (merge, retire, fold, alias),
 * each on current facts only and in one transaction, each reporting the trail (sources moved, facts moved to
 * another entity) the edit log needs to undo it exactly. It also says whether a card's row still stands, and is the
 * FoldTarget where a fold records what its survivor absorbed. It reads through the FactReader and closes conflict groups
 * through the FactSlots it is given; the renames part moves facts through it.
 */
import { planAliasSlot, type AliasSlotPlan, type AliasSlotRow, type DifferingValues } from '../rules/alias-plan.ts'
import { recordAlias, removeAlias, type AliasChange } from './alias-rows.ts'
import type { FactKeys } from '../fact-input.ts'
import { rowTargets } from '../rules/proposal-cards.ts'
import {
  CURRENT_STATUSES,
  type AliasRow,
  type CardRows,
  type Fact,
  type FoldRow,
  type MergeRow,
  type RetireRow,
  type ReviewKind,
} from '../types.ts'
import { evidenceRank } from '../rules/write-policy.ts'
import { identityOf, type EditTrail } from './edit-store.ts'
import { FACT_COLUMNS, INSTANT, KEY, placeholders, toFact } from './fact-rows.ts'
import type { Database } from './database.ts'
import type { FactReader } from './fact-reader.ts'
import type { FactSlots } from './fact-slots.ts'
import { relocateFact } from './fact-relocation.ts'
import { FOLD_HISTORY } from '../rules/fold.ts'
import { findTombstone } from './tombstones.ts'
import type { SyncRecorder } from './sync-recorder.ts'

/** One run a fold absorbs into its survivor. */
export interface AbsorbedRun {
  readonly factId: number
  readonly value: string
  readonly observedAt: string
}

/** Where an accepted fold records how many runs its survivor absorbed, so it reads "seen n times" as a write-time fold does. */
export interface FoldTarget {
  /**
   * Record on the survivor that it absorbed these runs.
   * @param survivorId - the run that stays.
   * @param runs - the runs it absorbs, oldest first.
   * @param now - ISO instant.
   * @returns how many runs this fold added to the survivor.
   */
  absorbRuns(survivorId: number, runs: readonly AbsorbedRun[], now: string): { readonly absorbed: number }
}

/** What one row's curation did, or why it did nothing. */
export type CurationOutcome<T> =
  | { readonly ok: true; readonly value: T; readonly trail: EditTrail }
  | { readonly ok: false; readonly reason: string }

/** Computes a stored fact's keys under another subject (and property) spelling (`keysUnder` of fact-input.ts). */
export type KeysOf = (fact: Fact, subject: string, property?: string) => FactKeys

/** A fact to move, with its keys where it goes. */
export interface MovingFact {
  readonly fact: Fact
  readonly keys: FactKeys
}

/** What moving facts did. */
export interface MoveCounts {
  readonly moved: number
  readonly merged: number
  readonly contested: number
}

/** Synchronous writes of accepted review cards over facts, under the slot rules. */
export class CurationStore implements FoldTarget {
  private readonly db: Database
  private readonly reader: FactReader
  private readonly slots: FactSlots
  private readonly recorder: SyncRecorder

  /**
   * @param db - the open, migrated database.
   * @param reader - the reads over the same database.
   * @param slots - the slot transitions over the same database.
   * @param recorder - appends each change's sync record in its transaction.
   */
  constructor(db: Database, reader: FactReader, slots: FactSlots, recorder: SyncRecorder) {
    this.db = db
    this.reader = reader
    this.slots = slots
    this.recorder = recorder
  }

  /**
   * Whether a row can still be applied: every fact it was proposed against stands at the revision it saw, and, for
   * an alias, the fragment holds exactly those facts (a fact it gained since is not one the card said would move).
   * @param kind - the card's kind.
   * @param row - the row.
   * @returns true when the row stands.
   */
  stands<K extends ReviewKind>(kind: K, row: CardRows[K]): boolean {
    const targets = rowTargets(kind, row)
    const facts = new Map(
      this.reader.getFacts(targets.map((target) => target.factId)).map((fact) => [fact.id as number, fact]),
    )
    const standing = targets.every((target) => {
      const fact = facts.get(target.factId)
      return fact !== undefined && fact.status !== 'forgotten' && fact.revision === target.revision
    })
    if (!standing || kind !== 'alias') return standing
    const live = this.liveFactIds((row as AliasRow).fragment)
    return live.length === targets.length && targets.every((target) => live.includes(target.factId))
  }

  /**
   * The slots applying a row may touch: its facts' slots and, for an alias, the slots they move to.
   * @param kind - the card's kind.
   * @param row - the row.
   * @param keysOf - recomputes a fact's keys under the canonical subject.
   * @returns slot keys.
   */
  slotsOf<K extends ReviewKind>(kind: K, row: CardRows[K], keysOf: KeysOf): string[] {
    const facts = this.reader.getFacts(rowTargets(kind, row).map((target) => target.factId))
    const slots = facts.map((fact) => fact.slotKey)
    const display = kind === 'alias' ? this.entityDisplay((row as AliasRow).canonical) : undefined
    if (display !== undefined) slots.push(...facts.map((fact) => keysOf(fact, display).slotKey))
    return [...new Set(slots)]
  }

  /**
   * Merge a near-duplicate into its keeper: the loser is superseded by the keeper, its sources move to the keeper,
   * and the keeper takes the stronger evidence of the two.
   * @param row - keeper and loser.
   * @param now - ISO instant.
   * @returns the keeper, the loser and how many sources moved, or why not.
   */
  applyMerge(row: MergeRow, now: string): CurationOutcome<{ keeperId: number; loserId: number; sourcesMoved: number }> {
    return this.db.transaction(() => {
      const [keeper, loser] = this.currentFacts([row.keeper.factId, row.loser.factId])
      if (keeper === undefined || loser === undefined)
        return notCurrent([row.keeper.factId, row.loser.factId], [keeper, loser])
      if (keeper.status === 'scheduled' && loser.status !== 'scheduled') {
        return {
          ok: false,
          reason: `the keeper #${keeper.id} only starts on ${keeper.validFrom.slice(0, 10)}; merging now would leave its value without a current row`,
        } as const
      }
      if (evidenceRank(loser.evidence) < evidenceRank(keeper.evidence)) {
        this.db.run(
          `UPDATE facts SET evidence_rank = ?, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
          evidenceRank(loser.evidence),
          now,
          keeper.id,
        )
      }
      const sources = this.moveSources(loser.id, keeper.id)
      this.supersedeRow(loser.id, keeper.id, now)
      this.recordMerge(loser, keeper, now)
      return {
        ok: true,
        value: { keeperId: keeper.id, loserId: loser.id, sourcesMoved: sources.length },
        trail: { sources, identities: [] },
      } as const
    })
  }

  /**
   * Retire a fact that only restates its own property: it leaves the current set as retired (taken out by a
   * decision, not by time: it never stopped holding, it never said anything), with its window closed now (at its
   * start, for a value still scheduled).
   * @param row - the fact.
   * @param now - ISO instant.
   * @returns the retired fact's id, or why not.
   */
  applyRetire(row: RetireRow, now: string): CurationOutcome<{ factId: number }> {
    return this.db.transaction(() => {
      const [fact] = this.currentFacts([row.fact.factId])
      if (fact === undefined) return notCurrent([row.fact.factId], [fact])
      this.db.run(
        `UPDATE facts SET status = 'retired', valid_to = CASE WHEN status = 'scheduled' THEN valid_from ELSE ${INSTANT} END,
        revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
        now,
        now,
        fact.id,
      )
      if (fact.conflictGroupId !== null) this.slots.closeGroupIfMoot(fact.conflictGroupId, now)
      this.recorder.recordSupersede([{ fact, as: 'retired' }], null, now)
      return { ok: true, value: { factId: fact.id }, trail: { sources: [], identities: [] } } as const
    })
  }

  /**
   * Fold a pipeline's older runs into its newest run: each run is superseded by the survivor and its sources move
   * to it, and the survivor records what it absorbed (see {@link absorbRuns}).
   * @param row - the survivor and its runs.
   * @param now - ISO instant.
   * @returns the survivor and how many runs it absorbed, or why not.
   */
  applyFold(row: FoldRow, now: string): CurationOutcome<{ survivorId: number; absorbed: number }> {
    return this.db.transaction(() => {
      const ids = [row.survivor.factId, ...row.runs.map((run) => run.factId)]
      const facts = this.currentFacts(ids)
      const [survivor, ...runs] = facts
      if (survivor === undefined || facts.some((fact) => fact === undefined)) return notCurrent(ids, facts)
      const present = runs
        .filter((run): run is Fact => run !== undefined)
        .sort((a, b) => (a.observedAt < b.observedAt ? -1 : a.observedAt > b.observedAt ? 1 : a.id - b.id))
      const sources = present.flatMap((run) => this.moveSources(run.id, survivor.id))
      for (const run of present) this.supersedeRow(run.id, survivor.id, now)
      const { absorbed } = this.absorbRuns(
        survivor.id,
        present.map((run) => ({ factId: run.id, value: run.value, observedAt: run.observedAt })),
        now,
      )
      for (const run of present)
        this.recorder.recordSupersede(
          [{ fact: run, as: 'folded' }],
          run.slotKey === survivor.slotKey ? survivor : null,
          now,
        )
      return { ok: true, value: { survivorId: survivor.id, absorbed }, trail: { sources, identities: [] } } as const
    })
  }

  /**
   * The survivor of a fold absorbs runs, as a write-time fold does: its fold count rises by every run and by what
   * each run had itself absorbed, and its fold history takes their values, oldest first (the last 20 kept), so the
   * survivor reads "seen n times" for every night it now stands for. The tracked edit records the survivor's text, so
   * undo puts the count and the history back.
   * @param survivorId - the run that stays.
   * @param runs - the runs it absorbs, oldest first.
   * @param now - ISO instant.
   * @returns how many runs this fold added to the survivor.
   */
  absorbRuns(survivorId: number, runs: readonly AbsorbedRun[], now: string): { readonly absorbed: number } {
    const [survivor] = this.reader.getFacts([survivorId])
    if (survivor === undefined || runs.length === 0) return { absorbed: 0 }
    const absorbedRows = this.reader.getFacts(runs.map((run) => run.factId))
    const absorbed = absorbedRows.reduce((sum, row) => sum + 1 + row.foldedCount, 0)
    const history = [...absorbedRows.flatMap((row) => [...row.foldedFrom, row.value]), ...survivor.foldedFrom].slice(
      -FOLD_HISTORY,
    )
    this.db.run(
      `UPDATE facts SET folded_count = folded_count + ?, folded_from = ?, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
      absorbed,
      JSON.stringify(history),
      now,
      survivorId,
    )
    return { absorbed }
  }

  /**
   * Alias a fragment entity into its canonical one: every fact of the fragment that was not forgotten moves to the
   * canonical entity, written under its name, with slot, claim and evidence keys and index entries recomputed as a
   * write would compute them. Where a moved current fact meets current facts of the canonical entity in one slot,
   * the slot rules of `alias-plan.ts` decide. Refused, with nothing moved, when a moved current fact would restate a
   * claim the user forgot.
   * @param row - fragment, canonical and the fragment's facts.
   * @param keysOf - recomputes a fact's keys under the canonical subject.
   * @param now - ISO instant.
   * @returns how many facts moved, merged into a canonical twin, or stand contested; or why not.
   */
  applyAlias(
    row: AliasRow,
    keysOf: KeysOf,
    now: string,
  ): CurationOutcome<{ fragment: string; canonical: string; moved: number; merged: number; contested: number }> {
    return this.db.transaction(() => {
      const canonical = this.db.get('SELECT id, display FROM entities WHERE entity_key = ?', row.canonical)
      if (canonical === undefined)
        return { ok: false, reason: `no entity is called "${row.canonical}" any more` } as const
      const entityId = Number(canonical['id'])
      const display = String(canonical['display'])
      const facts = this.reader
        .getFacts(row.facts.map((ref) => ref.factId))
        .filter((fact) => fact.status !== 'forgotten')
      const moving = facts.map((fact) => ({ fact, keys: keysOf(fact, display) }))
      const misfit = moving.find((entry) => entry.keys.entityKey !== row.canonical)
      if (misfit !== undefined)
        return { ok: false, reason: `"${display}" does not read as the entity "${row.canonical}"` } as const
      const fragmentText = this.entityDisplay(row.fragment) ?? facts[0]?.subject ?? row.fragment
      const moved = this.moveFacts(moving, entityId, 'write_rules', now)
      if (!moved.ok) return moved
      // The fragment's name stays an alias, so the next write under it lands here instead of splitting the entity again.
      const aliases = this.alias(
        {
          kind: 'entity',
          entityKey: '',
          aliasKey: row.fragment,
          aliasText: fragmentText,
          canonicalKey: row.canonical,
          canonicalText: display,
          origin: 'card',
        },
        now,
      )
      return {
        ok: true,
        value: { fragment: row.fragment, canonical: row.canonical, ...moved.value },
        trail: { ...moved.trail, aliases },
      } as const
    })
  }

  /**
   * Move facts to another entity (or property) under the slot rules: each fact is written under the keys given,
   * and where a moved current fact meets current facts in its new slot the rules of `alias-plan.ts` decide, two
   * different current values of a single-valued slot meeting as `differing` says. Refused, with nothing moved, when
   * a moved current fact would restate a claim the user forgot. Runs inside the caller's transaction.
   * @param moving - the facts (none forgotten) and their keys where they go.
   * @param entityId - the entity they move to.
   * @param differing - how two different current values of a single-valued slot meet.
   * @param now - ISO instant.
   * @returns how many facts moved, merged into a twin, or stand contested, with the trail; or why not.
   */
  moveFacts(
    moving: readonly MovingFact[],
    entityId: number,
    differing: DifferingValues,
    now: string,
  ): CurationOutcome<MoveCounts> {
    const current = moving.filter((entry) => CURRENT_STATUSES.includes(entry.fact.status))
    const forgotten = current.find((entry) => findTombstone(this.db, entry.keys) !== undefined)
    if (forgotten !== undefined) {
      return {
        ok: false,
        reason: `#${forgotten.fact.id} would restate a claim the user forgot about "${forgotten.keys.subject}"`,
      }
    }
    const movingIds = new Set(moving.map((entry) => entry.fact.id as number))
    const plans = [...new Set(current.map((entry) => entry.keys.slotKey))].map((slotKey) => ({
      slotKey,
      plan: planAliasSlot(
        [
          ...this.currentInSlot(slotKey)
            .filter((fact) => !movingIds.has(fact.id))
            .map((fact) => slotRow(fact, 'canonical', fact.claimKey)),
          ...current
            .filter((entry) => entry.keys.slotKey === slotKey)
            .map((entry) => slotRow(entry.fact, 'fragment', entry.keys.claimKey)),
        ],
        differing,
      ),
    }))
    const sources: { id: number; from: number }[] = []
    // Rows leave the current set before any fact moves in, so no slot ever holds two current values or claims.
    for (const { plan } of plans) {
      for (const gone of plan.supersede) {
        if (gone.sources) sources.push(...this.moveSources(gone.id, gone.by))
        this.supersedeRow(gone.id, gone.by, now, false)
      }
      for (const change of plan.status.filter((entry) => entry.status === 'conflict')) {
        this.db.run(
          `UPDATE facts SET status = 'conflict', revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
          now,
          change.id,
        )
      }
    }
    const identities = moving.map((entry) => ({ factId: entry.fact.id, before: identityOf(this.db, entry.fact.id) }))
    for (const { fact, keys } of moving) relocateFact(this.db, fact.id, entityId, keys, now)
    for (const { slotKey, plan } of plans) this.settleSlot(slotKey, plan, now)
    // A twin of the same value is one fact to sync already; a different value the rules retired is recorded as ended.
    for (const { plan } of plans) {
      for (const gone of plan.supersede.filter((entry) => !entry.sources)) {
        const [ended, by] = this.reader.getFacts([gone.id, gone.by])
        if (ended !== undefined) this.recorder.recordSupersede([{ fact: ended, as: 'superseded' }], by ?? null, now)
      }
    }
    return {
      ok: true,
      value: {
        moved: moving.length,
        merged: plans.reduce((n, { plan }) => n + plan.supersede.filter((entry) => entry.sources).length, 0),
        contested: plans.reduce((n, { plan }) => n + (plan.group === null ? 0 : plan.group.members.length), 0),
      },
      trail: { sources, identities },
    }
  }

  /**
   * Record an alias inside the caller's transaction (see alias-rows.ts), and its sync record: every alias row it
   * added or repointed.
   * @returns the alias rows changed.
   */
  alias(input: Parameters<typeof recordAlias>[1], now: string): AliasChange[] {
    const changes = recordAlias(this.db, input, now)
    for (const { after } of changes) {
      if (after === null) continue
      this.recorder.recordAlias(
        {
          aliasKind: after.kind,
          entity: after.kind === 'predicate' ? after.entityKey : null,
          from: after.aliasKey,
          to: after.canonicalKey,
          display: after.canonicalText,
        },
        now,
      )
    }
    return changes
  }

  /**
   * Remove an alias inside the caller's transaction (see alias-rows.ts), and record its removal for sync.
   * @param id - the alias id.
   * @param now - ISO instant.
   * @returns the change, or undefined when no alias has that id.
   */
  unalias(id: number, now: string): AliasChange | undefined {
    const change = removeAlias(this.db, id)
    const row = change?.before
    if (row != null)
      this.recorder.recordUnalias(
        {
          aliasKind: row.kind,
          entity: row.kind === 'predicate' ? row.entityKey : null,
          from: row.aliasKey,
          to: row.canonicalKey,
        },
        now,
      )
    return change
  }

  /**
   * Record for sync a subject, or one subject's property, now shown under another spelling of the same key.
   * @param entityKey - the subject.
   * @param predicateKey - the property's key, or null for the subject itself.
   * @param names - the new spelling, and the one it replaces.
   * @param now - ISO instant.
   */
  renamedDisplay(
    entityKey: string,
    predicateKey: string | null,
    names: { readonly display: string; readonly before: string },
    now: string,
  ): void {
    this.recorder.recordDisplay(
      {
        nameKind: predicateKey === null ? 'entity' : 'predicate',
        entity: entityKey,
        predicate: predicateKey,
        ...names,
      },
      now,
    )
  }

  /**
   * A merge card's loser, ended by its keeper; when the keeper took the loser's stronger evidence, the keeper is
   * stated again with it (one write ending the loser, when both share a slot).
   */
  private recordMerge(loser: Fact, keeperBefore: Fact, now: string): void {
    const [keeper] = this.reader.getFacts([keeperBefore.id])
    if (keeper === undefined) return
    const rose = evidenceRank(loser.evidence) < evidenceRank(keeperBefore.evidence)
    if (rose && loser.slotKey === keeper.slotKey) {
      this.recorder.recordWrite(keeper, [{ fact: loser, as: 'superseded' }], now)
      return
    }
    this.recorder.recordSupersede([{ fact: loser, as: 'superseded' }], keeper, now)
    if (rose) this.recorder.recordWrite(keeper, [], now)
  }

  /** The display name of an entity, or undefined. */
  entityDisplay(entityKey: string): string | undefined {
    const row = this.db.get('SELECT display FROM entities WHERE entity_key = ?', entityKey)
    return row === undefined ? undefined : String(row['display'])
  }

  private liveFactIds(entityKey: string): number[] {
    return this.db
      .all(
        `SELECT id FROM facts WHERE entity_id = (SELECT id FROM entities WHERE entity_key = ?) AND status <> 'forgotten'`,
        entityKey,
      )
      .map((row) => Number(row['id']))
  }

  /** The facts by id in the order given, undefined where a fact is missing or not current. */
  private currentFacts(ids: readonly number[]): (Fact | undefined)[] {
    const facts = new Map(this.reader.getFacts(ids).map((fact) => [fact.id as number, fact]))
    return ids.map((id) => {
      const fact = facts.get(id)
      return fact !== undefined && CURRENT_STATUSES.includes(fact.status) ? fact : undefined
    })
  }

  private currentInSlot(slotKey: string): Fact[] {
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE slot_key = ${KEY} AND status IN ('active', 'scheduled', 'conflict') ORDER BY id`,
        slotKey,
      )
      .map(toFact)
  }

  /** Move every source of one fact to another; returns the moved sources with the fact they came from. */
  private moveSources(from: number, to: number): { id: number; from: number }[] {
    const ids = this.db
      .all('SELECT id FROM fact_sources WHERE fact_id = ? ORDER BY id', from)
      .map((row) => Number(row['id']))
    if (ids.length > 0)
      this.db.run(`UPDATE fact_sources SET fact_id = ? WHERE id IN (${placeholders(ids.length)})`, to, ...ids)
    return ids.map((id) => ({ id, from }))
  }

  /**
   * Supersede a current row by another, its window closed now (at its start, for a value still scheduled); a conflict
   * group it leaves with nothing to settle closes unless `settle` is false (the alias settles its slots itself).
   */
  private supersedeRow(id: number, by: number, now: string, settle = true): void {
    const group = this.db.get('SELECT conflict_group_id FROM facts WHERE id = ?', id)?.['conflict_group_id']
    this.db.run(
      `UPDATE facts SET status = 'superseded', superseded_by = ?, valid_to = max(${INSTANT}, valid_from), revision = revision + 1, updated_at = ${INSTANT}
      WHERE id = ?`,
      by,
      now,
      now,
      id,
    )
    if (settle && typeof group === 'number') this.slots.closeGroupIfMoot(group, now)
  }

  /** The rest of a slot's plan, once every fact has moved in: values that become current, multi-valued, stronger, grouped. */
  private settleSlot(slotKey: string, plan: AliasSlotPlan, now: string): void {
    for (const change of plan.status.filter((entry) => entry.status === 'active')) {
      this.db.run(
        `UPDATE facts SET status = 'active', revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
        now,
        change.id,
      )
    }
    if (plan.multi.length > 0) {
      this.db.run(
        `UPDATE facts SET multi = 1, revision = revision + 1, updated_at = ${INSTANT} WHERE id IN (${placeholders(plan.multi.length)})`,
        now,
        ...plan.multi,
      )
    }
    for (const { id, evidence } of plan.upgrade) {
      this.db.run(
        `UPDATE facts SET evidence_rank = ?, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
        evidenceRank(evidence),
        now,
        id,
      )
    }
    if (plan.close.length > 0) {
      this.db.run(
        `UPDATE conflict_groups SET status = 'closed', closed_at = ? WHERE status = 'open' AND id IN (${placeholders(plan.close.length)})`,
        now,
        ...plan.close,
      )
    }
    if (plan.group === null) return
    const groupId =
      plan.group.id ??
      this.db.run(`INSERT INTO conflict_groups (slot_key, status, opened_at) VALUES (${KEY}, 'open', ?)`, slotKey, now)
        .lastInsertRowid
    this.db.run(`UPDATE conflict_groups SET slot_key = ${KEY} WHERE id = ?`, slotKey, groupId)
    const members = plan.group.members
    this.db.run(
      `UPDATE facts SET conflict_group_id = ?, revision = revision + 1, updated_at = ${INSTANT}
      WHERE id IN (${placeholders(members.length)}) AND conflict_group_id IS NOT ?`,
      groupId,
      now,
      ...members,
      groupId,
    )
  }
}

function slotRow(fact: Fact, side: AliasSlotRow['side'], claimKey: string): AliasSlotRow {
  return {
    id: fact.id,
    side,
    claimKey,
    status: fact.status as AliasSlotRow['status'],
    evidence: fact.evidence,
    multi: fact.multi,
    validFrom: fact.validFrom,
    observedAt: fact.observedAt,
    conflictGroupId: fact.conflictGroupId,
  }
}

function notCurrent(ids: readonly number[], facts: readonly (Fact | undefined)[]): { ok: false; reason: string } {
  const missing = ids.filter((_id, at) => facts[at] === undefined)
  return {
    ok: false,
    reason: `${missing.map((id) => `#${id}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} no longer current`,
  }
}
