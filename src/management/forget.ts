/**
 * fact-forget: the page's forget — one fact, one property of a subject, or the whole subject, in every scope. It
 * writes the tombstones memory_forget writes (the same store path), runs behind the fence, and is recorded as one
 * reversible edit whose undo (fact-restore) removes those tombstones and puts every row back as it was.
 */
import { canonicalPredicate } from '../text/normalize.ts'
import type { OpenStores } from '../store/store-set.ts'
import type { Fact } from '../types.ts'
import { abandon, ok, refuse, runFenced, verb } from './verb.ts'
import { factView } from './views.ts'

/** fact-forget: forget by id, or by subject (entity key) and optionally one property. */
export const factForgetVerb = verb('fact-forget', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    return runFenced(stores, 'fact-forget', body, now, () => {
      const targets = targetFacts(context.stores, body)
      if (targets.length === 0) {
        return refuse(
          'not_found',
          'id' in body
            ? `no fact has id ${body.id}`
            : `the store has no fact for ${body.property === undefined ? `subject ${body.entityKey}` : `${body.entityKey} · ${body.property}`}`,
        )
      }
      const { result, editId } = stores.edits.trackedForget(
        targets.map((fact) => fact.slotKey),
        'id' in body ? body.id : undefined,
        now,
        () => {
          const forgotten =
            'id' in body
              ? stores.facts.forgetById(body.id, now)
              : stores.facts.forgetBySubject(
                  body.entityKey,
                  body.property === undefined ? undefined : canonicalPredicate(body.property),
                  now,
                ).forgotten
          if (forgotten.length === 0) abandon(refuse('not_found', 'nothing was left to forget'))
          return forgotten
        },
      )
      return ok({ forgotten: result.map(factView), editId, undo: { editId } })
    })
  },
})

/** The live facts a forget names, for the slots its edit records. */
function targetFacts(
  stores: OpenStores,
  body: { id: number } | { entityKey: string; property?: string | undefined },
): Fact[] {
  if ('id' in body) return stores.facts.getFacts([body.id]).filter((fact) => fact.status !== 'forgotten')
  const entity = stores.library.entity(body.entityKey)
  if (entity === undefined) return []
  const predicate = body.property === undefined ? undefined : canonicalPredicate(body.property)
  return entity.facts.filter(
    (fact) => fact.status !== 'forgotten' && (predicate === undefined || fact.predicateKey === predicate),
  )
}
