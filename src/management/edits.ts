/**
 * The row-editing verbs of the page: fact-update, fact-expire, resolve, and fact-restore (the undo of any of
 * them). Each runs behind the fence and is recorded as one reversible edit.
 */
import { isProjectScope } from '../project/project-ref.ts'
import { abandon, ok, refuse, runFenced, verb, type Unfenced, type VerbContext, type VerbOutcome } from './verb.ts'
import { dateArgumentInstant } from '../text/dates.ts'
import { CURRENT_STATUSES, type Fact, type FactInput } from '../types.ts'
import { preparePageWrite } from './page-write.ts'
import { factView } from './views.ts'

/**
 * fact-update: the user's own correction. A new value (or subject, property, qualifiers) supersedes the old one,
 * which is kept as history; an edit of only the validity window corrects the fact's own row.
 */
export const factUpdateVerb = verb('fact-update', {
  run(body, context) {
    const { stores, config } = context
    const now = context.now()
    return runFenced(stores, 'fact-update', body, now, () => {
      const fact = currentFact(stores.facts.getFacts([body.id])[0], body.id)
      if (
        body.scope !== undefined &&
        body.scope !== fact.scope &&
        (isProjectScope(body.scope) || isProjectScope(fact.scope))
      ) {
        return refuse(
          'refused',
          'a fact moves into or out of a project with fact-move, which never overwrites a value already there',
        )
      }
      const claim: FactInput = {
        subject: body.subject ?? fact.subject,
        property: body.property ?? fact.property,
        value: body.value ?? fact.value,
        qualifiers: body.qualifiers ?? fact.qualifiers,
        cues: body.cues ?? fact.cues,
        scope: body.scope ?? fact.scope,
        multi: fact.multi,
        evidence: 'explicit_user',
        origin: 'page',
      }
      const same = preparePageWrite(claim, config, now)
      if (!same.ok) return same
      if (same.write.claimKey === fact.claimKey) {
        if (body.cues !== undefined && (same.write.sensitivity ?? null) !== (fact.sensitivity ?? null)) {
          return refuse(
            'refused',
            `a cue holds personal data (${same.write.sensitivityReason ?? 'sensitive'}); cues are for finding the fact, leave it out`,
          )
        }
        return editWindow(
          fact,
          { ...body, cues: body.cues === undefined ? undefined : same.write.cues },
          same.write.scope,
          context,
          now,
        )
      }
      const prepared = preparePageWrite(
        { ...claim, validFrom: body.validFrom, validTo: body.validTo ?? fact.validTo ?? undefined },
        config,
        now,
      )
      if (!prepared.ok) return prepared
      const { result, editId } = stores.edits.tracked('update', [fact.slotKey], { factId: fact.id }, now, () => {
        const written = stores.facts.write(prepared.write, now)
        if (written.kind === 'refused') abandon(refuse(written.code, written.message))
        if (written.kind === 'proposed') abandon(refuse('refused', 'the edit could not be stored as a fact'))
        const next = written.fact
        // The edited row leaves the current set even when the new value lives in another slot.
        if (next.id !== fact.id) stores.facts.supersedeAcrossSlots(fact.id, next.id, now)
        return { result: next, created: written.kind === 'saved' || written.kind === 'conflict' ? [next.id] : [] }
      })
      return ok({
        fact: factView(stores.facts.getFacts([result.id])[0] ?? result),
        previousId: fact.id,
        editId,
        undo: { editId },
      })
    })
  },
})

/**
 * The part of fact-update that keeps the claim: only the window and the cues can change, on the fact's own row,
 * recorded as one reversible edit. Omitted ends keep their current instant; omitted cues stay.
 */
function editWindow(
  fact: Fact,
  body: { validFrom?: string | undefined; validTo?: string | undefined; cues?: readonly string[] | undefined },
  scope: string,
  context: VerbContext,
  now: string,
): VerbOutcome<Unfenced<'fact-update'>> {
  const { stores, config } = context
  if (scope !== fact.scope)
    return refuse('refused', 'the scope cannot change on its own here; move the fact with fact-move')
  const validFrom =
    body.validFrom === undefined ? fact.validFrom : dateArgumentInstant(body.validFrom, config.displayTimeZone, 'start')
  if (validFrom === undefined) return refuse('invalid_arguments', 'validFrom is not a date')
  const validTo =
    body.validTo === undefined ? fact.validTo : dateArgumentInstant(body.validTo, config.displayTimeZone, 'start')
  if (validTo === undefined) return refuse('invalid_arguments', 'validTo is not a date')
  const windowChanged = validFrom !== fact.validFrom || validTo !== fact.validTo
  const cuesChanged = body.cues !== undefined && JSON.stringify(body.cues) !== JSON.stringify(fact.cues)
  if (!windowChanged && !cuesChanged) {
    return refuse(
      'refused',
      'nothing changed: the edit states the value, the window and the cues the fact already holds',
    )
  }
  if (validTo !== null && validTo <= validFrom)
    return refuse('invalid_arguments', 'validTo must be later than validFrom')
  const { result, editId } = stores.edits.tracked('update', [fact.slotKey], { factId: fact.id }, now, () => {
    let revisedFact = fact
    if (windowChanged) {
      const revised = stores.facts.reviseWindow(fact.id, validFrom, validTo, now)
      if (!revised.ok) {
        abandon(
          revised.reason === 'start_ahead'
            ? refuse(
                'refused',
                `fact ${fact.id} is current; its start cannot move into the future (expire it and write the coming value with that start)`,
              )
            : refuse('refused', `fact ${fact.id} is no longer current`),
        )
      }
      revisedFact = revised.fact
    }
    if (cuesChanged && body.cues !== undefined) {
      const withCues = stores.facts.reviseCues(fact.id, body.cues, now)
      if (withCues === undefined) abandon(refuse('refused', `fact ${fact.id} is no longer current`))
      revisedFact = withCues
    }
    return { result: revisedFact, created: [] }
  })
  return ok({ fact: factView(result), previousId: fact.id, editId, undo: { editId } })
}

/** fact-expire: the value no longer holds; valid_to is stamped now and the row leaves the current set. */
export const factExpireVerb = verb('fact-expire', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    return runFenced(stores, 'fact-expire', body, now, () => {
      const fact = currentFact(stores.facts.getFacts([body.id])[0], body.id)
      const { result, editId } = stores.edits.tracked('expire', [fact.slotKey], { factId: fact.id }, now, () => {
        const expired = stores.facts.expireFact(fact.id, now)
        if (expired === undefined) abandon(refuse('refused', `fact ${fact.id} is no longer current`))
        return { result: expired, created: [] }
      })
      return ok({ fact: factView(result), editId, undo: { editId } })
    })
  },
})

/** resolve: settle an open conflict group on the side the user chose. */
export const resolveVerb = verb('resolve', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    return runFenced(stores, 'resolve', body, now, () => {
      const [keep] = stores.facts.getFacts([body.keepFactId])
      if (keep === undefined || keep.status === 'forgotten')
        return refuse('not_found', `no fact has id ${body.keepFactId}`)
      const { result, editId } = stores.edits.tracked('resolve', [keep.slotKey], { factId: keep.id }, now, () => {
        const settled = stores.facts.resolveGroup(body.groupId, body.keepFactId, now)
        if (!settled.ok) {
          abandon(
            settled.reason === 'group_not_open'
              ? refuse('not_found', `conflict group ${body.groupId} is not open`)
              : refuse('refused', `fact ${body.keepFactId} is not a current side of conflict group ${body.groupId}`),
          )
        }
        return { result: settled.kept, created: [] }
      })
      return ok({ kept: factView(result), groupId: body.groupId, editId, undo: { editId } })
    })
  },
})

/** Facts a fact-restore answer lists. */
const RESTORED_SHOWN = 200

/** fact-restore: undo one edit exactly, unless the facts it touched have moved since. */
export const factRestoreVerb = verb('fact-restore', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    return runFenced(stores, 'fact-restore', body, now, () => {
      const restored = stores.edits.restore(body.editId, now)
      if (!restored.ok) {
        const refusal = restored.refusal
        if (refusal.kind === 'not_found') return refuse('not_found', `no edit has id ${body.editId}`)
        if (refusal.kind === 'already_undone') return refuse('refused', `edit ${body.editId} was already undone`)
        if (refusal.kind === 'aliases_moved') {
          return refuse(
            'refused',
            'an alias this edit recorded has changed since (removed or renamed again); reload to see it',
            { movedAliasIds: refusal.aliasIds },
          )
        }
        return refuse(
          'refused',
          `the facts this edit touched have changed since (${refusal.factIds.map((id) => `#${id}`).join(', ')}); reload to see them`,
          { movedFactIds: refusal.factIds },
        )
      }
      const touched = [
        ...restored.edit.changed.map((change) => change.before.id),
        ...restored.edit.created.map((row) => row.id),
        ...(restored.edit.forget?.rows.map((row) => Number(row.before['id'])) ?? []),
      ]
      // An import's undo may touch thousands of rows: the answer shows the first RESTORED_SHOWN and counts them all.
      const facts = stores.facts.getFacts(touched.slice(0, RESTORED_SHOWN))
      if (restored.edit.proposalId !== null && stores.proposals.reopen(restored.edit.proposalId, now)) {
        // The card goes back to the queue against the facts as the undo left them, which is how its apply found them.
        const revisions = new Map(
          stores.facts
            .getFacts(restored.edit.changed.map((change) => change.before.id))
            .map((fact) => [fact.id as number, fact.revision]),
        )
        stores.proposals.retarget(
          restored.edit.proposalId,
          new Map(
            restored.edit.changed.map((change) => [
              change.before.id,
              { from: change.before.revision, to: revisions.get(change.before.id) ?? change.before.revision },
            ]),
          ),
          now,
        )
      }
      return ok({
        editId: body.editId,
        kind: restored.edit.kind,
        facts: facts.map(factView),
        factsTotal: touched.length,
      })
    })
  },
})

/** A fact that can be edited: it exists, is not forgotten and is current; otherwise the fenced work is abandoned. */
function currentFact(fact: Fact | undefined, id: number): Fact {
  if (fact === undefined || fact.status === 'forgotten') abandon(refuse('not_found', `no fact has id ${id}`))
  if (!CURRENT_STATUSES.includes(fact.status))
    abandon(refuse('refused', `fact ${id} is ${fact.status}; only a current fact can be changed`))
  return fact
}
