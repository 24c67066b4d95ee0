/**
 * fact-add: the page's "Add fact" — a new statement the user makes (evidence explicit_user, origin page, as
 * fact-update records the user's own values). It takes the write path every other writer takes (prepareWrite's
 * privacy scan, then the store's slot rules and tombstone check), runs behind the fence, and is recorded as one
 * reversible edit whose undo (fact-restore) takes the written row out of the current set and puts back what it
 * superseded, retired or settled.
 */
import { isProjectScope } from '../project/project-ref.ts'
import type { FactInput } from '../types.ts'
import { abandon, ok, refuse, runFenced, verb } from './verb.ts'
import { preparePageWrite } from './page-write.ts'
import { factView } from './views.ts'

/** fact-add: write one fact as the user's own statement and answer what the write path did with it. */
export const factAddVerb = verb('fact-add', {
  run(body, context) {
    const { stores, config } = context
    const now = context.now()
    return runFenced(stores, 'fact-add', body, now, () => {
      const scope = body.scope ?? 'global'
      if (isProjectScope(scope) && !stores.library.scopes().some((known) => known.scope === scope)) {
        return refuse('invalid_arguments', 'a project scope must be one the store already holds; pick it from the list')
      }
      const claim: FactInput = {
        subject: body.subject,
        property: body.property,
        value: body.value,
        scope,
        multi: body.multi,
        evidence: 'explicit_user',
        origin: 'page',
      }
      const prepared = preparePageWrite(claim, config, now)
      if (!prepared.ok) return prepared
      const { result, editId } = stores.edits.tracked('update', [prepared.write.slotKey], {}, now, () => {
        const written = stores.facts.write(prepared.write, now)
        if (written.kind === 'refused') abandon(refuse(written.code, written.message))
        const created = written.kind === 'saved' || written.kind === 'conflict' ? [written.fact.id] : []
        return { result: written, created }
      })
      const reread = (id: number) => stores.facts.getFacts([id])[0]
      switch (result.kind) {
        case 'saved': {
          const fact = reread(result.fact.id) ?? result.fact
          return ok({
            outcome: 'saved',
            fact: factView(fact),
            superseded: result.superseded.map(factView),
            retired: result.retired.map(factView),
            sensitivityReason: prepared.write.sensitivityReason,
            editId,
            undo: { editId },
          })
        }
        case 'conflict':
          return ok({
            outcome: 'conflict',
            fact: factView(reread(result.fact.id) ?? result.fact),
            rivals: result.rivals.map(factView),
            sensitivityReason: prepared.write.sensitivityReason,
            editId,
            undo: { editId },
          })
        case 'duplicate': {
          const changed = result.upgraded || result.settled || result.superseded.length > 0 || result.retired.length > 0
          return ok({
            outcome: 'duplicate',
            fact: factView(reread(result.fact.id) ?? result.fact),
            upgraded: result.upgraded,
            restated: result.restatement !== null,
            editId: changed ? editId : null,
            undo: changed ? { editId } : null,
          })
        }
        case 'folded':
          return ok({
            outcome: 'folded',
            fact: factView(reread(result.fact.id) ?? result.fact),
            editId,
            undo: { editId },
          })
        case 'proposed':
          return ok({
            outcome: 'proposed',
            proposalId: result.proposalId,
            reason: result.reason,
            editId: null,
            undo: null,
          })
        default:
          return abandon(refuse('refused', 'the write path answered nothing this verb knows'))
      }
    })
  },
})
