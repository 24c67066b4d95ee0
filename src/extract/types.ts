/**
 * The shapes automatic capture works with: the conversation text of one pass, what the prefilter and the shape gate
 * decide, and the candidates both paths (rules and model) hand to the write rules. Pure data, no behaviour.
 */

/** One message of the conversation as extraction reads it: only the user's words and the assistant's replies. */
export interface ConversationMessage {
  readonly role: 'user' | 'assistant'
  /** The session event's seq. */
  readonly seq: number
  /** The turn the message belongs to, when known. */
  readonly turn: number | null
  /** The message's text blocks joined with blank lines; never tool output, notices or runtime context. */
  readonly text: string
}

/** The fixed range one pass covers: [startSeq, endSeq) of one session. */
export interface Snapshot {
  readonly sessionId: string
  /** First seq of the range (inclusive). */
  readonly startSeq: number
  /** The seq of the turn/end that triggered the pass (exclusive). */
  readonly endSeq: number
  /** The turns whose messages the range holds, ascending. */
  readonly turns: readonly number[]
  readonly messages: readonly ConversationMessage[]
  /** Characters of text over all messages. */
  readonly chars: number
  /** SHA-256 (hex) of the text sent for the range, so "what did that pass process" stays answerable. */
  readonly textHash: string
}

/** What the signal prefilter found in a text. */
export type SignalKind = 'remember' | 'preference' | 'decision' | 'binding'

/** The kinds the rule path captures; `note` is the catch-all for an explicit "remember" without a binding. */
export type RuleKind = SignalKind | 'note'

/** One signal: its kind and the stretch of text that carried it. */
export interface Signal {
  readonly kind: SignalKind
  /** The matched text, verbatim. */
  readonly match: string
}

/** The shape gate's verdict on a candidate. */
export type ShapeVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: ShapeRefusal }

/** Why the shape gate refused a candidate: a closed set, recorded on the extraction run. */
export type ShapeRefusal =
  | 'subject_not_entity'
  | 'fragment'
  | 'question'
  | 'request'
  | 'conversation_meta'
  | 'instruction'
  | 'empty'
  | 'too_long'

/** A fact one of the paths proposes to write, before the write rules see it. */
export interface Candidate {
  readonly subject: string
  readonly property: string
  readonly value: string
  /** Verbatim text of the input the fact was read from; a candidate whose quote is not in the input is dropped. */
  readonly quote: string
  /** 0..1; below extractConfidenceMin the candidate becomes a proposal. */
  readonly confidence: number
  readonly scope?: string | undefined
  readonly qualifiers?: Readonly<Record<string, string>> | undefined
  /** Phrases a later request needing the fact would use (English and Chinese); never part of the value. */
  readonly cues?: readonly string[] | undefined
  readonly multi?: boolean | undefined
  /** ISO date or instant the value becomes valid. */
  readonly validFrom?: string | undefined
  /** ISO date or instant the value stops being valid. */
  readonly validTo?: string | undefined
}

/** A candidate the rule path produced, with the rule kind that matched it. */
export interface RuleCandidate extends Candidate {
  readonly kind: RuleKind
  /** The user asked in so many words to remember it: it is written even when the model path will read the message. */
  readonly explicit: boolean
}

/** Why a model candidate did not land: a closed set, recorded on the extraction run. */
export type CandidateRefusal =
  | ShapeRefusal
  | 'quote_not_in_input'
  | 'invalid'
  | 'credential'
  | 'tombstoned'
  | 'duplicate'
  | 'already_decided'
  | 'merge_discarded'

/** One model call's worth of conversation: whole messages, or pieces of one oversized message that keep its seq. */
export interface Segment {
  /** The messages (or message pieces) in order; a piece carries its message's role, seq and turn. */
  readonly messages: readonly ConversationMessage[]
  /** The text sent to the model for this segment: `renderForModel(messages)`. */
  readonly text: string
}

/** What one pass reads and where the cursor goes afterwards. */
export interface PassPlan {
  /** The segments of this pass, in conversation order. */
  readonly segments: readonly Segment[]
  /** The exclusive seq the cursor moves to once the pass is done: in front of the first message it did not read. */
  readonly coveredEndSeq: number
  /** True when messages of the range were left for a later pass. */
  readonly remaining: boolean
}

/** A text-only model request: a system prompt and one user message. */
export interface ModelPrompt {
  readonly system: string
  readonly user: string
}

/**
 * One statement a rule pattern read inside a clause, before the rule path tidies it into a candidate, the shape
 * gate judges it and the privacy scan runs.
 */
export interface RuleMatch {
  /** Which family of pattern read it: a plain binding, a stated preference, or a decision. */
  readonly family: 'binding' | 'preference' | 'decision'
  readonly subject: string
  readonly property: string
  readonly value: string
  /** Where the reading starts and ends inside the text the pattern read; overlapping readings keep the first. */
  readonly start: number
  readonly end: number
}
