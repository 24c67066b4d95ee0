/**
 * fact-pin: the page's pin and unpin of a fact, behind the fence. Only the user pins: no model tool reaches this verb
 * or accepts a pin field. A pin is allowed on an active fact; an unpin on any pinned row (a pin left on a row that has
 * since stopped being current is inert, and the user can clear it). Each answer names the operation its undo takes
 * back: `{id, undoes}` gives the row exactly the pin it had before, and is refused when the pin moved since.
 */
import type { OpenStores } from '../store/store-set.ts'
import { ok, refuse, runFenced, verb, type Refusal } from './verb.ts'
import { factView } from './views.ts'

/** What a fact-pin receipt records, as its undo reads it back. */
interface PinReceipt {
  readonly factId: number
  readonly pinnedAt: string | null
  readonly previousPinnedAt: string | null
}

/** fact-pin: `{expectedGeneration, operationId, id, pinned}` or `{expectedGeneration, operationId, id, undoes}`. */
export const factPinVerb = verb('fact-pin', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    return runFenced(stores, 'fact-pin', body, now, () => {
      const [fact] = stores.facts.getFacts([body.id])
      if (fact === undefined || fact.status === 'forgotten') return refuse('not_found', `no fact has id ${body.id}`)
      let target: string | null
      if ('undoes' in body) {
        const undone = undoneReceipt(stores, body.undoes, body.id)
        if ('refusal' in undone) return undone.refusal
        if (fact.pinnedAt !== undone.pinnedAt) {
          return refuse(
            'refused',
            `the pin of fact ${body.id} changed since that operation (or it was already undone); reload to see it`,
          )
        }
        target = undone.previousPinnedAt
      } else if (body.pinned) {
        if (fact.status !== 'active')
          return refuse('refused', `fact ${body.id} is ${fact.status}; only a current fact can be pinned`)
        if (fact.pinnedAt !== null) return refuse('refused', `fact ${body.id} is already pinned`)
        target = now
      } else {
        if (fact.pinnedAt === null) return refuse('refused', `fact ${body.id} is not pinned`)
        target = null
      }
      const changed = stores.pins.setPin(fact.id, target)
      if (!changed.ok) return refuse('not_found', `no fact has id ${body.id}`)
      const [after] = stores.facts.getFacts([fact.id])
      return ok({
        fact: factView(after ?? fact),
        factId: fact.id,
        pinned: changed.after !== null,
        pinnedAt: changed.after,
        previousPinnedAt: changed.before,
        undo: { id: fact.id, undoes: body.operationId },
      })
    })
  },
})

/** The receipt of the fact-pin an undo names, if it is one and is about this fact. */
function undoneReceipt(stores: OpenStores, operationId: string, factId: number): PinReceipt | { refusal: Refusal } {
  const prior = stores.operations.find(operationId)
  if (prior === undefined || prior.verb !== 'fact-pin')
    return { refusal: refuse('not_found', `no pin or unpin has operation id ${operationId}`) }
  const receipt = prior.receipt
  if (receipt['factId'] !== factId)
    return { refusal: refuse('refused', `operation ${operationId} was about another fact`) }
  const instant = (value: unknown): string | null => (typeof value === 'string' ? value : null)
  return { factId, pinnedAt: instant(receipt['pinnedAt']), previousPinnedAt: instant(receipt['previousPinnedAt']) }
}
