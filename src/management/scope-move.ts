/**
 * fact-move: the page's move of a current fact to another scope (global, a free-text label, a known project),
 * behind the fence and recorded as one reversible edit that fact-restore undoes. A move never overwrites: when the
 * target slot already holds a current value it is refused with `slot_occupied`, naming that value.
 */
import { keysUnder, storedLabel } from '../fact-input.ts'
import { projectKeyOfScope, projectScope } from '../project/project-ref.ts'
import type { MoveOutcome, ScopeKeysOf, ScopeStore } from '../store/fact-store.ts'
import { MASK } from '../text/privacy.ts'
import { CURRENT_STATUSES, type ProjectRef } from '../types.ts'
import { abandon, ok, refuse, runFenced, verb, type Refusal } from './verb.ts'
import { factView, scopeLabel } from './views.ts'

/** A fact's keys in another scope, as a write into it would compute them. */
const keysIn: ScopeKeysOf = (fact, scope) => keysUnder({ ...fact, scope }, fact.subject)

/** fact-move: `{expectedGeneration, operationId, id, scope}`. */
export const factMoveVerb = verb('fact-move', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    return runFenced(stores, 'fact-move', body, now, () => {
      const [fact] = stores.facts.getFacts([body.id])
      if (fact === undefined || fact.status === 'forgotten') return refuse('not_found', `no fact has id ${body.id}`)
      if (!CURRENT_STATUSES.includes(fact.status))
        return refuse('refused', `fact ${body.id} is ${fact.status}; only a current fact can be moved`)
      const target = targetOf(body.scope, stores.facts.scopes)
      if ('refusal' in target) return target.refusal
      const targetSlot = keysIn(fact, target.scope).slotKey
      const { result, editId } = stores.edits.tracked(
        'update',
        [fact.slotKey, targetSlot],
        { factId: fact.id },
        now,
        () => {
          const moved = stores.facts.scopes.moveToScope(fact.id, target, keysIn, now)
          if (!moved.ok)
            abandon(moveRefusal(moved, body.id, scopeLabel(target.scope, target.project?.name ?? null).name))
          return { result: moved, created: [], trail: moved.trail }
        },
      )
      const from = scopeLabel(fact.scope, fact.projectName)
      return ok({
        fact: factView(result.fact),
        moved: result.moved.map((row) => row.id),
        from: { kind: from.kind, name: from.name },
        editId,
        undo: { editId },
      })
    })
  },
})

/** The scope a body names: global, a label, or a project the store already knows (its name comes from there). */
function targetOf(
  scope: string,
  scopes: Pick<ScopeStore, 'knownProject'>,
): { scope: string; project: ProjectRef | null } | { refusal: Refusal } {
  const key = projectKeyOfScope(scope)
  if (key === null) return { scope: storedLabel(scope), project: null }
  const known = scopes.knownProject(key)
  if (known === undefined)
    return {
      refusal: refuse(
        'not_found',
        'no project of that scope is known to the store; a project is known once a fact was written in it',
      ),
    }
  return { scope: projectScope(known.key), project: { key: known.key, name: known.name } }
}

function moveRefusal(moved: Extract<MoveOutcome, { ok: false }>, id: number, target: string): Refusal {
  switch (moved.reason) {
    case 'not_current':
      return refuse('refused', `fact ${id} is no longer current`)
    case 'same_scope':
      return refuse('refused', `fact ${id} is already in ${target}`)
    case 'contested':
      return refuse('refused', `fact ${id} is contested; settle its conflict before moving it`)
    case 'tombstoned':
      return refuse(
        'tombstoned',
        `the user forgot this claim (a forget holds in every scope); it cannot be moved into ${target}`,
      )
    case 'occupied': {
      const occupant = moved.occupant
      const value = occupant.sensitivity === 'credential' ? MASK : occupant.value
      return refuse(
        'slot_occupied',
        `${target} already holds ${occupant.subject} · ${occupant.property} = ${value} (#${occupant.id}); edit or expire that value first, nothing was moved`,
        { occupantId: occupant.id },
      )
    }
  }
}
