/**
 * Pure slot rules of an alias: when the facts of a fragment entity move to the canonical one, a slot of the
 * canonical entity can receive current rows of its own kind. This decides, for one such slot, what becomes of its
 * current rows, under the slot rules a write follows:
 * - the same claim on both sides is one fact: the row that is current now (active, then contested, then scheduled;
 *   the canonical side on a tie) keeps it, takes the other's sources and the stronger evidence, and the other is
 *   superseded by it;
 * - a multi-valued slot (either side) keeps every value, all marked multi-valued;
 * - two different current values in a single-valued slot meet as a write meets the value it finds, in the order they
 *   became valid: the later one replaces the earlier when its evidence is at least as strong, and is otherwise kept
 *   as a conflict beside it; under `differing: 'conflict'` (a merge the user asked for) they always stand as a
 *   conflict for the user to settle, never a silent choice;
 * - contested rows of both sides share one open conflict group (the canonical side's, else the fragment's, else a
 *   new one), and a group left with nothing to settle closes (a lone contested row becomes current).
 * An alias states nothing new, so it never settles a contest: only the user's own statement or a resolve does.
 * Scheduled rows move as they are. No database, no clock.
 */
import { evidenceRank } from './write-policy.ts'
import type { Evidence } from '../types.ts'

/** A current row of the merged slot, with its claim key as it reads under the canonical entity. */
export interface AliasSlotRow {
  readonly id: number
  readonly side: 'canonical' | 'fragment'
  readonly claimKey: string
  readonly status: 'active' | 'scheduled' | 'conflict'
  readonly evidence: Evidence
  readonly multi: boolean
  readonly validFrom: string
  readonly observedAt: string
  readonly conflictGroupId: number | null
}

/** What becomes of one merged slot's current rows. */
export interface AliasSlotPlan {
  /** Rows that leave the current set, superseded by a row of the slot; `sources`: a duplicate whose sources move. */
  readonly supersede: readonly { readonly id: number; readonly by: number; readonly sources: boolean }[]
  /** Evidence a kept row rises to, brought by its duplicate. */
  readonly upgrade: readonly { readonly id: number; readonly evidence: Evidence }[]
  /** Rows whose status changes and stays current. */
  readonly status: readonly { readonly id: number; readonly status: 'active' | 'conflict' }[]
  /** Active rows that become multi-valued. */
  readonly multi: readonly number[]
  /** The slot's one open conflict group afterwards: an existing group (`id`) or a new one (`id: null`), with its rows. */
  readonly group: { readonly id: number | null; readonly members: readonly number[] } | null
  /** Groups of these rows that close. */
  readonly close: readonly number[]
}

const STATUS_ORDER = { active: 0, conflict: 1, scheduled: 2 } as const

/** How two different current values of a single-valued slot meet: by the write rules, or always as a conflict. */
export type DifferingValues = 'write_rules' | 'conflict'

/**
 * Plan one merged slot.
 * @param rows - the slot's current rows from both sides; claim keys are distinct within each side.
 * @param differing - how two different current values of a single-valued slot meet; the write rules by default.
 * @returns the plan; rows it does not name keep their status.
 */
export function planAliasSlot(
  rows: readonly AliasSlotRow[],
  differing: DifferingValues = 'write_rules',
): AliasSlotPlan {
  const supersede: { id: number; by: number; sources: boolean }[] = []
  const upgrade: { id: number; evidence: Evidence }[] = []
  const evidence = new Map(rows.map((row) => [row.id, row.evidence]))
  const gone = new Set<number>()
  for (const row of rows) {
    if (row.side !== 'fragment') continue
    const twin = rows.find((other) => other.side === 'canonical' && other.claimKey === row.claimKey)
    if (twin === undefined) continue
    const [keeper, loser] = STATUS_ORDER[twin.status] <= STATUS_ORDER[row.status] ? [twin, row] : [row, twin]
    supersede.push({ id: loser.id, by: keeper.id, sources: true })
    gone.add(loser.id)
    if (evidenceRank(loser.evidence) < evidenceRank(keeper.evidence)) {
      upgrade.push({ id: keeper.id, evidence: loser.evidence })
      evidence.set(keeper.id, loser.evidence)
    }
  }
  const status = new Map<number, 'active' | 'conflict'>()
  for (const row of rows) if (row.status !== 'scheduled') status.set(row.id, row.status)
  const left = rows.filter((row) => !gone.has(row.id))
  const current = left.filter((row) => row.status !== 'scheduled')
  const multiValued = current.some((row) => row.multi)
  const multi = multiValued ? current.filter((row) => row.status === 'active' && !row.multi).map((row) => row.id) : []
  if (!multiValued) {
    const actives = current.filter((row) => row.status === 'active')
    const [older, newer] = [...actives].sort(byValidity)
    if (older !== undefined && newer !== undefined) {
      if (
        differing === 'write_rules' &&
        evidenceRank(evidence.get(newer.id) ?? newer.evidence) <= evidenceRank(evidence.get(older.id) ?? older.evidence)
      ) {
        supersede.push({ id: older.id, by: newer.id, sources: false })
        gone.add(older.id)
      } else {
        status.set(newer.id, 'conflict')
      }
    }
  }
  const standing = current.filter((row) => !gone.has(row.id))
  const contested = standing.filter((row) => status.get(row.id) === 'conflict')
  const active = standing.filter((row) => status.get(row.id) === 'active')
  const groups = [...new Set(rows.flatMap((row) => (row.conflictGroupId === null ? [] : [row.conflictGroupId])))]
  let group: AliasSlotPlan['group'] = null
  if (contested.length === 1 && active.length === 0) {
    const [lone] = contested
    if (lone !== undefined) status.set(lone.id, 'active')
  } else if (contested.length > 0) {
    const own = (side: AliasSlotRow['side']): number | undefined =>
      standing.find((row) => row.side === side && row.conflictGroupId !== null && status.get(row.id) === 'conflict')
        ?.conflictGroupId ?? undefined
    group = { id: own('canonical') ?? own('fragment') ?? null, members: [...active, ...contested].map((row) => row.id) }
  }
  const changed = rows.flatMap((row) => {
    const next = status.get(row.id)
    return next === undefined || gone.has(row.id) || next === row.status ? [] : [{ id: row.id, status: next }]
  })
  return { supersede, upgrade, status: changed, multi, group, close: groups.filter((id) => id !== group?.id) }
}

/** Earlier validity first, then the earlier observation, then id order. */
function byValidity(a: AliasSlotRow, b: AliasSlotRow): number {
  if (a.validFrom !== b.validFrom) return a.validFrom < b.validFrom ? -1 : 1
  if (a.observedAt !== b.observedAt) return a.observedAt < b.observedAt ? -1 : 1
  return a.id - b.id
}
