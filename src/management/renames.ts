/**
 * The page's renames and merges: subject-rename (a subject to a new name, or merged into the subject that name
 * already reads as), property-rename (one subject's property, likewise) and alias-remove. Each runs behind the fence;
 * a rename or merge is one reversible edit that fact-restore undoes exactly, aliases included. The old name stays a
 * lasting alias, so a later write under it lands on the new one.
 */
import { keysUnder } from '../fact-input.ts'
import type { AliasRow } from '../store/alias-rows.ts'
import type { CurationOutcome, RenameValue } from '../store/fact-store.ts'
import { canonicalPredicate } from '../text/normalize.ts'
import { scanPrivacy } from '../text/privacy.ts'
import type { aliasViewSchema } from './answers.schema.ts'
import type { WireOf } from '../wire.schema.ts'
import {
  abandon,
  ok,
  refuse,
  runFenced,
  verb,
  type Refusal,
  type Unfenced,
  type VerbContext,
  type VerbOutcome,
} from './verb.ts'

/**
 * subject-rename: `{expectedGeneration, operationId, entityKey, to}`. With `dryRun: true` it writes nothing and
 * answers whether the name is free (a rename) or another subject's (a merge, with that subject's name), so the page
 * can say which before the user confirms.
 */
export const subjectRenameVerb = verb('subject-rename', {
  run(body, context) {
    const to = tidy(body.to)
    const refusal = nameRefusal(to, 'subject')
    if (refusal !== undefined) return refusal
    if (body.dryRun === true) {
      const preview = context.stores.facts.renames.previewSubjectRename(body.entityKey, to)
      return preview.ok ? ok({ ...preview.value, dryRun: true }) : refuse('refused', preview.reason)
    }
    const { dryRun: _dryRun, ...fenced } = body
    return runFenced(context.stores, 'subject-rename', fenced, context.now(), () => {
      const { stores } = context
      const slots = stores.facts.renames.subjectRenameSlots(body.entityKey, to, keysUnder)
      return tracked(context, slots, (now) => stores.facts.renames.renameSubject(body.entityKey, to, keysUnder, now))
    })
  },
})

/** property-rename: `{expectedGeneration, operationId, entityKey, property, to}`. */
export const propertyRenameVerb = verb('property-rename', {
  run(body, context) {
    const to = tidy(body.to)
    const refusal = nameRefusal(to, 'property')
    if (refusal !== undefined) return refusal
    const predicateKey = canonicalPredicate(body.property)
    return runFenced(context.stores, 'property-rename', body, context.now(), () => {
      const { stores } = context
      const slots = stores.facts.renames.propertyRenameSlots(body.entityKey, predicateKey, to, keysUnder)
      return tracked(context, slots, (now) =>
        stores.facts.renames.renameProperty(body.entityKey, predicateKey, to, keysUnder, now),
      )
    })
  },
})

/** alias-remove: `{expectedGeneration, operationId, id}`; the facts it moved stay where they are. */
export const aliasRemoveVerb = verb('alias-remove', {
  run(body, context) {
    const now = context.now()
    return runFenced(context.stores, 'alias-remove', body, now, () => {
      const removed = context.stores.facts.renames.removeAlias(body.id, now)
      if (removed?.before == null) return refuse('not_found', `no alias has id ${body.id}`)
      return ok({ removed: aliasView(removed.before) })
    })
  },
})

/**
 * The wire view of an alias.
 * @param alias - the stored alias.
 * @returns what the page shows of it.
 */
export function aliasView(alias: AliasRow): WireOf<typeof aliasViewSchema> {
  return {
    id: alias.id,
    kind: alias.kind,
    alias: alias.aliasText,
    canonical: alias.canonicalText,
    origin: alias.origin,
    createdAt: alias.createdAt,
  }
}

/** Run a rename as one reversible edit, and answer what it did with the edit id that undoes it. */
function tracked(
  context: VerbContext,
  slots: readonly string[],
  work: (now: string) => CurationOutcome<RenameValue>,
): VerbOutcome<Unfenced<'property-rename'>> {
  const now = context.now()
  const { result, editId } = context.stores.edits.tracked('rename', slots, {}, now, () => {
    const outcome = work(now)
    if (!outcome.ok) abandon(refuse('refused', outcome.reason))
    return { result: outcome.value, created: [], trail: outcome.trail }
  })
  return ok({ ...result, editId, undo: { editId } })
}

/** Why a new name cannot be taken: nothing left once tidied, or a credential. */
function nameRefusal(to: string, what: 'subject' | 'property'): Refusal | undefined {
  if (to === '') return refuse('invalid_arguments', `the new ${what} is empty`)
  const finding = scanPrivacy('', to, what)
  if (finding?.sensitivity === 'credential')
    return refuse('credential_refused', `refused: ${finding.reason}; a credential is never a name`)
  return undefined
}

function tidy(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim()
}
