/**
 * Pure: what one health-check run found, in plain words, as the verb answers it and the settings card shows it:
 * "3 cards queued: retire 4 facts that only restate their property; fold 2 dated pipelines; alias 1 split subject",
 * "nothing new: 2 rows already queued", "the library looks clean".
 */
import type { AuditCard, AuditRunRecord } from '../store/audit-store.ts'

const WHAT: Readonly<Record<AuditCard['kind'], (rows: number) => string>> = {
  retire: (n) => `retire ${plural(n, 'fact')} that only restate their property`,
  fold: (n) => `fold ${plural(n, 'dated pipeline')}`,
  alias: (n) => `alias ${plural(n, 'split subject')}`,
  merge: (n) => `merge ${plural(n, 'pair')}`,
}

/**
 * The sentence for one run.
 * @param run - the run as recorded.
 * @returns one line.
 */
export function auditSentence(run: Pick<AuditRunRecord, 'cards' | 'alreadyQueued' | 'declined' | 'error'>): string {
  if (run.error !== null) return `the health check failed: ${run.error}`
  const rows = new Map<AuditCard['kind'], number>()
  for (const card of run.cards) rows.set(card.kind, (rows.get(card.kind) ?? 0) + card.rows)
  const left = [
    run.alreadyQueued > 0 ? `${plural(run.alreadyQueued, 'row')} already queued` : '',
    run.declined > 0 ? `${plural(run.declined, 'row')} declined before` : '',
  ]
    .filter((part) => part !== '')
    .join(', ')
  if (run.cards.length === 0) return left === '' ? 'the library looks clean' : `nothing new: ${left}`
  const what = [...rows].map(([kind, n]) => WHAT[kind](n)).join('; ')
  return `${plural(run.cards.length, 'card')} queued: ${what}${left === '' ? '' : ` (${left})`}`
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}
