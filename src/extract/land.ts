/**
 * Land candidates: the last local checks (the quote must be in the text that was read, the shape gate) and then the
 * same write rules memory_write uses. Evidence is the user's own words only when the quote is in a user message;
 * anything else is observed. Nothing here decides differently for the rule path and the model path.
 */
import type { ResolvedConfig } from '../config.ts'
import type { FactMemory } from '../fact-memory.ts'
import type { RefusedCandidate } from '../store/extract-store.ts'
import type { Anchor, Origin } from '../types.ts'
import { anchorQuote, foldForAnchor } from './anchor.ts'
import { shapeGate } from './shape-gate.ts'
import type { Candidate, ConversationMessage } from './types.ts'

/** Where the candidates come from. */
export interface LandingSource {
  readonly origin: Extract<Origin, 'rule' | 'extract'>
  /** The messages the candidates were read from (their quotes must be in them). */
  readonly messages: readonly ConversationMessage[]
  /** The session, when the text is a conversation's; facts are anchored to the turn their quote came from. */
  readonly sessionId: string | null
  /** False for text that is nobody's statement (a one-off extraction of pasted text): evidence stays observed. */
  readonly usersWords: boolean
}

/** What landing did. */
export interface Landing {
  readonly factIds: readonly number[]
  readonly proposalIds: readonly number[]
  readonly refused: readonly RefusedCandidate[]
}

/**
 * Write the candidates that pass the checks.
 * @param candidates - from the rules or the model.
 * @param source - their text and origin.
 * @param memory - the store service.
 * @param config - the live configuration (extractConfidenceMin is the proposal floor).
 * @returns the facts written, the proposals queued and what was refused, with reasons.
 */
export function landCandidates(candidates: readonly Candidate[], source: LandingSource, memory: FactMemory, config: ResolvedConfig): Landing {
  const factIds: number[] = []
  const proposalIds: number[] = []
  const refused: RefusedCandidate[] = []
  for (const candidate of candidates) {
    const shown = { subject: candidate.subject, property: candidate.property, value: candidate.value }
    // The quote must lie within one message that was read; a paraphrase or a stitched quote drops the candidate.
    const owner = anchorQuote(candidate.quote, source.messages)
    if (owner === undefined) {
      refused.push({ reason: 'quote_not_in_input', ...shown })
      continue
    }
    const shape = shapeGate(candidate)
    if (!shape.ok) {
      refused.push({ reason: shape.reason, ...shown })
      continue
    }
    const answer = memory.write({
      subject: candidate.subject,
      property: candidate.property,
      value: candidate.value,
      evidence: source.usersWords && owner === 'user' ? 'explicit_user' : 'observed',
      quote: candidate.quote,
      scope: candidate.scope,
      qualifiers: candidate.qualifiers,
      confidence: candidate.confidence,
      confidenceFloor: config.extractConfidenceMin,
      multi: candidate.multi,
      validFrom: candidate.validFrom,
      validTo: candidate.validTo,
      origin: source.origin,
      anchor: anchorOf(candidate.quote, source),
    }, config)
    switch (answer.kind) {
      case 'saved':
      case 'conflict':
        factIds.push(answer.fact.id)
        break
      case 'duplicate':
        // The claim is already known: the write added a source (and may have raised the evidence); nothing new.
        refused.push({ reason: 'duplicate', ...shown })
        break
      case 'proposed':
        proposalIds.push(answer.proposalId)
        break
      case 'refused':
        refused.push({ reason: answer.code === 'tombstoned' ? 'tombstoned' : answer.code === 'credential_refused' ? 'credential' : 'invalid', ...shown })
        break
      case 'unavailable':
        refused.push({ reason: 'unavailable', ...shown })
        break
    }
  }
  return { factIds, proposalIds, refused }
}

/** The session and turn of the message the quote came from (a user message first). */
function anchorOf(quote: string, source: LandingSource): Anchor | undefined {
  if (source.sessionId === null) return undefined
  const needle = foldForAnchor(quote)
  const holding = source.messages.filter((message) => foldForAnchor(message.text).includes(needle))
  const message = holding.find((entry) => entry.role === 'user') ?? holding[0]
  return { sessionId: source.sessionId, turn: message?.turn ?? null }
}
