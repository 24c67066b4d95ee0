/**
 * Putting a past value back from the library's history list: which rows offer it, and the fenced call with its
 * toast (Undo restores both the put-back value and the one it replaced).
 */
import type { AppState } from './app-state.ts'
import type { FactView } from '../src/wire-types.ts'

const PAST = new Set(['superseded', 'retired', 'expired'])
const CURRENT = new Set(['active', 'scheduled', 'conflict'])

/**
 * Whether a history row offers Put back: a past value whose text is not a current value of the slot already, and
 * not a withheld credential.
 * @param row - one row of the history list.
 * @param history - the whole list.
 * @returns true when the row offers it.
 */
export function canPutBack(row: FactView, history: readonly FactView[]): boolean {
  if (!PAST.has(row.status) || row.masked) return false
  return !history.some(
    (other) =>
      CURRENT.has(other.status) &&
      other.value === row.value &&
      JSON.stringify(other.qualifiers) === JSON.stringify(row.qualifiers),
  )
}

/**
 * Make a past value current again, as the user's confirmed edit.
 * @param app - the page state.
 * @param row - the past value.
 * @returns the new current fact, or undefined when refused (the refusal is shown).
 */
export async function putBack(app: AppState, row: FactView): Promise<FactView | undefined> {
  const answer = await app.fencedEdit('fact-put-back', { id: row.id })
  if (answer === undefined) return undefined
  app.toast(`Put back ${row.subject} · ${row.property} = ${answer.fact.value}`, {
    action: app.undoAction(answer.editId, 'Undone: the value before is current again'),
  })
  app.changed()
  return answer.fact
}
