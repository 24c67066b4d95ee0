/**
 * Pure: per-turn recall folded into a conversation's counts, so the turn's card and the drawer can say what was
 * recalled beside what was written. A turn that only recalled still gets its entry, and so does a conversation that
 * only recalled.
 */
import type { SessionCounts } from '../store/library-store.ts'
import type { SessionCountsWire, TurnCountsWire } from '../wire-types.ts'

/**
 * Add what each turn recalled.
 * @param sessions - the conversations' counts from the library.
 * @param recalled - session id → turn → the facts recalled on it (from the recall ledger).
 * @param asked - the conversations asked for, in order; undefined when the most recent ones were listed.
 * @returns the counts with `recalled` and `recalledIds` on every turn, and a conversation for each asked one that only recalled.
 */
export function withRecalls(
  sessions: readonly SessionCounts[],
  recalled: ReadonlyMap<string, ReadonlyMap<number | null, readonly number[]>>,
  asked: readonly string[] | undefined,
): Omit<SessionCountsWire, 'extractingTurns'>[] {
  const merged = sessions.map((session) => mergeTurns(session, recalled.get(session.sessionId)))
  const known = new Set(sessions.map((session) => session.sessionId))
  for (const sessionId of asked ?? []) {
    const turns = recalled.get(sessionId)
    if (known.has(sessionId) || turns === undefined) continue
    merged.push(mergeTurns({ sessionId, facts: 0, pending: 0, unsettled: 0, lastAt: '', turns: [] }, turns))
  }
  return merged
}

function mergeTurns(
  session: SessionCounts,
  recalled: ReadonlyMap<number | null, readonly number[]> | undefined,
): Omit<SessionCountsWire, 'extractingTurns'> {
  const turns: TurnCountsWire[] = session.turns.map((turn) => {
    const ids = recalled?.get(turn.turn) ?? []
    return { ...turn, recalled: ids.length, recalledIds: ids }
  })
  const written = new Set(session.turns.map((turn) => turn.turn))
  for (const [turn, ids] of recalled ?? []) {
    if (!written.has(turn))
      turns.push({ turn, facts: 0, pending: 0, unsettled: 0, factIds: [], recalled: ids.length, recalledIds: ids })
  }
  turns.sort((a, b) => (a.turn ?? -1) - (b.turn ?? -1))
  return { ...session, turns }
}
