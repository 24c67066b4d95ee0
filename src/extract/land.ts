/**
 * Land candidates: the last local checks (the quote must be in the text that was read, the shape gate) and then the
 * same write rules memory_write uses. Evidence is the user's own words only when the quote is in a user message and
 * carries the value (quote-carries.ts: a sentence, not "yes", that holds it); anything else is observed. Nothing here decides differently for the rule path and the model path.
 */
import type { ResolvedConfig } from '../config.ts'
import type { FactMemory } from '../fact-memory.ts'
import type { RefusedCandidate } from '../store/extract-store.ts'
import type { Origin, ProjectRef } from '../types.ts'
import { anchorMessage } from './anchor.ts'
import { quoteCarries } from './quote-carries.ts'
import { shapeGate } from './shape-gate.ts'
import type { Candidate, ConversationMessage } from './types.ts'
import type { ErrorCode } from '../errors.ts'
import { isProjectWord, projectKeyOfScope } from '../project/project-ref.ts'

/**
 * Why the store refused a candidate, in the run log's words. The store answers `refused` for a change the user
 * already rejected on its card, so the log says the change was decided before, not that it was malformed.
 */
const REFUSAL_REASON: Partial<Record<ErrorCode, RefusedCandidate['reason']>> = {
  tombstoned: 'tombstoned',
  credential_refused: 'credential',
  refused: 'already_decided',
}

/** Where the candidates come from. */
export interface LandingSource {
  readonly origin: Extract<Origin, 'rule' | 'extract'>
  /** The messages the candidates were read from (their quotes must be in them). */
  readonly messages: readonly ConversationMessage[]
  /** The session, when the text is a conversation's; facts are anchored to the turn their quote came from. */
  readonly sessionId: string | null
  /** False for text that is nobody's statement (a one-off extraction of pasted text): evidence stays observed. */
  readonly usersWords: boolean
  /**
   * The session's project: a candidate scoped `"project"` is written to it. Null outside a project (pasted text, a
   * session without a working directory): such a candidate is written global, the only scope there is.
   */
  readonly project: ProjectRef | null
}

/** What landing did. */
export interface Landing {
  readonly factIds: readonly number[]
  /** The cards pending review after landing, each once. */
  readonly proposalIds: readonly number[]
  readonly refused: readonly RefusedCandidate[]
}

/**
 * Write the candidates that pass the checks.
 * @param candidates - from the rules or the model.
 * @param source - their text and origin.
 * @param memory - the store service.
 * @param config - the live configuration (extractConfidenceMin is the proposal floor).
 * @returns the facts written, the cards pending review and what was refused, with reasons. A candidate the store
 *   answered with a card that is not pending afterwards (the user already applied or rejected it, or it went stale)
 *   is refused as `already_decided`, so only what awaits review is counted as such, whatever the store answers.
 */
export function landCandidates(
  candidates: readonly Candidate[],
  source: LandingSource,
  memory: FactMemory,
  config: ResolvedConfig,
): Landing {
  const factIds: number[] = []
  const proposed: { readonly id: number; readonly shown: ReturnType<typeof shownOf> }[] = []
  const refused: RefusedCandidate[] = []
  for (const candidate of candidates) {
    const checked = checkCandidate(candidate, source.messages)
    if (!checked.ok) {
      refused.push(checked.refused)
      continue
    }
    const shown = shownOf(candidate)
    const scope = candidateScope(candidate, source.project)
    if (scope === undefined) {
      refused.push({ reason: 'invalid', ...shown })
      continue
    }
    const answer = memory.write(
      {
        subject: candidate.subject,
        property: candidate.property,
        value: candidate.value,
        evidence:
          source.usersWords && checked.held.role === 'user' && quoteCarries(candidate.quote, candidate.value).carries
            ? 'explicit_user'
            : 'observed',
        quote: candidate.quote,
        ...scope,
        qualifiers: candidate.qualifiers,
        cues: candidate.cues,
        confidence: candidate.confidence,
        confidenceFloor: config.extractConfidenceMin,
        multi: candidate.multi,
        validFrom: candidate.validFrom,
        validTo: candidate.validTo,
        origin: source.origin,
        anchor: source.sessionId === null ? undefined : { sessionId: source.sessionId, turn: checked.held.turn },
      },
      config,
    )
    switch (answer.kind) {
      case 'saved':
      case 'conflict':
        factIds.push(answer.fact.id)
        break
      case 'folded':
        // The candidate was a recurring line on another day: its row now holds it (or its later date).
        factIds.push(answer.fact.id)
        break
      case 'duplicate':
        // The claim is already known: the write added a source (and may have raised the evidence); nothing new.
        refused.push({ reason: 'duplicate', ...shown })
        break
      case 'proposed':
        proposed.push({ id: answer.proposalId, shown })
        break
      case 'refused':
        refused.push({ reason: REFUSAL_REASON[answer.code] ?? 'invalid', ...shown })
        break
      case 'unavailable':
        refused.push({ reason: 'unavailable', ...shown })
        break
    }
  }
  const pending = pendingCards(
    proposed.map((card) => card.id),
    memory,
  )
  for (const card of proposed)
    if (!pending.includes(card.id)) refused.push({ reason: 'already_decided', ...card.shown })
  return { factIds, proposalIds: pending, refused }
}

/**
 * Where a candidate is written: the session's project for the scope word `"project"`, else its label as given. A
 * project's own scope text is nothing a candidate may carry.
 * @returns the write's scope or project, or undefined when the candidate is refused.
 */
function candidateScope(
  candidate: Candidate,
  project: ProjectRef | null,
): { scope?: string | undefined; project?: ProjectRef } | undefined {
  if (isProjectWord(candidate.scope)) return project === null ? {} : { project }
  if (candidate.scope !== undefined && projectKeyOfScope(candidate.scope) !== null) return undefined
  return { scope: candidate.scope }
}

/** The cards among `ids` that are pending now, each once, in first-seen order. */
function pendingCards(ids: readonly number[], memory: FactMemory): number[] {
  const opened = memory.stores()
  if (!('stores' in opened)) return []
  const { proposals } = opened.stores
  return [...new Set(ids)].filter((id) => proposals.get(id)?.status === 'pending')
}

/**
 * The local checks every candidate passes before any write: its quote lies within one message that was read (a
 * paraphrase or a stitched quote fails), and the shape gate.
 * @param candidate - from the rules or the model.
 * @param messages - the messages it was read from.
 * @returns the message holding the quote (a user message first), or why the candidate is refused.
 */
export function checkCandidate(
  candidate: Candidate,
  messages: readonly ConversationMessage[],
):
  | { readonly ok: true; readonly held: ConversationMessage }
  | { readonly ok: false; readonly refused: RefusedCandidate } {
  const held = anchorMessage(candidate.quote, messages)
  if (held === undefined) return { ok: false, refused: { reason: 'quote_not_in_input', ...shownOf(candidate) } }
  const shape = shapeGate(candidate)
  return shape.ok ? { ok: true, held } : { ok: false, refused: { reason: shape.reason, ...shownOf(candidate) } }
}

/** A candidate as the run log names it. */
function shownOf(candidate: Candidate): { subject: string; property: string; value: string } {
  return { subject: candidate.subject, property: candidate.property, value: candidate.value }
}
