/**
 * fact-put-back: make a past value of a slot current again in one action, as the user's own confirmed edit
 * (evidence confirmed_user, origin page). The value it replaces is superseded at that instant, as any correction
 * leaves it, and the edit is recorded so fact-restore undoes both rows exactly.
 */
import { CURRENT_STATUSES, type FactInput } from '../types.ts'
import { abandon, ok, refuse, runFenced, verb } from './verb.ts'
import { preparePageWrite } from './page-write.ts'
import { factView } from './views.ts'

/** fact-put-back: a superseded, retired or expired value becomes the slot's current value. */
export const factPutBackVerb = verb('fact-put-back', {
  run(body, context) {
    const { stores, config } = context
    const now = context.now()
    return runFenced(stores, 'fact-put-back', body, now, () => {
      const [past] = stores.facts.getFacts([body.id])
      if (past === undefined || past.status === 'forgotten') return refuse('not_found', `no fact has id ${body.id}`)
      if (CURRENT_STATUSES.includes(past.status))
        return refuse('refused', `fact ${body.id} is already ${past.status}; only a past value can be put back`)
      if (past.sensitivity === 'credential')
        return refuse('refused', "a credential's value is withheld from the page; write it again instead")
      const claim: FactInput = {
        subject: past.subject,
        property: past.property,
        value: past.value,
        qualifiers: past.qualifiers,
        scope: past.scope,
        multi: past.multi,
        evidence: 'explicit_user',
        origin: 'page',
      }
      const prepared = preparePageWrite(claim, config, now)
      if (!prepared.ok) return prepared
      const { result, editId } = stores.edits.tracked('update', [past.slotKey], { factId: past.id }, now, () => {
        const written = stores.facts.write(prepared.write, now)
        if (written.kind === 'refused') abandon(refuse(written.code, written.message))
        if (written.kind === 'duplicate' || written.kind === 'folded')
          abandon(refuse('refused', `${past.value} is already a current value of this slot`))
        if (written.kind === 'proposed') abandon(refuse('refused', 'the value could not be stored as a fact'))
        // Written with the user's authority so it supersedes what is current, then recorded as what it is: a confirmation.
        stores.facts.markConfirmedByUser(written.fact.id, now)
        return { result: written.fact, created: [written.fact.id] }
      })
      const [current] = stores.facts.getFacts([result.id])
      return ok({ fact: factView(current ?? result), putBackFrom: past.id, editId, undo: { editId } })
    })
  },
})
