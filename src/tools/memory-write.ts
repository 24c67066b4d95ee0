/**
 * The memory_write tool: parse arguments, check that an explicit_user claim is backed by the user's own words (they
 * occur in the user's messages and carry the value, extract/quote-carries.ts), anchor the write to its session and
 * turn, apply the slot rules, and report the outcome in words.
 */
import type { WriteAnswer } from '../fact-memory.ts'
import type { SessionView, ToolCall, ToolSpec } from '../host/ports.ts'
import { projectOfSession } from '../project/project-locator.ts'
import { isProjectWord, projectKeyOfScope } from '../project/project-ref.ts'
import { toolOutputSchema } from './output-schema.ts'
import { writeValueSchema } from './tool-values.schema.ts'
import type { WireOf } from '../wire.schema.ts'
import { formatInstant } from '../text/dates.ts'
import type { Evidence, Fact, ProjectRef } from '../types.ts'
import type { ToolDeps } from './memory-search.ts'
import { maskEchoes } from './echo-mask.ts'
import { anchorOf, userSaid } from './session-anchor.ts'
import { PAUSED_TOOL_ANSWER } from '../pause/pause-words.ts'
import { sessionPaused } from '../pause/session-pause.ts'
import { quoteCarries, shortfallNote } from '../extract/quote-carries.ts'
import { parseArgs, toolParameters, writeArgs } from './tool-args.schema.ts'

/** The canonical value of memory_write (fields documented in tool-values.schema.ts). */
export type WriteValue = WireOf<typeof writeValueSchema>

/** memory_write's output schema, generated from the zod schema of its value. */
const WRITE_OUTPUT = toolOutputSchema(writeValueSchema)

/**
 * Build the memory_write tool.
 * @param deps - the service and the live configuration.
 * @returns the tool definition.
 */
export function memoryWriteTool(deps: ToolDeps): ToolSpec {
  return {
    name: 'memory_write',
    description: [
      'Store one durable fact for later conversations: subject · property · value (e.g. "billing-api" · "port" · "8123").',
      'Use it when the user states a lasting preference, decision or property, or asks you to remember something.',
      'evidence: explicit_user when the user said it (pass their exact words as quote — without them it is recorded as',
      'observed); observed for what you read from files or tools; unverified for hearsay; inferred for your own',
      'conclusion (queued for the user to review). A property holds one current value unless multi is true; a weaker',
      'value never replaces what the user stated, it is recorded as a visible conflict. Credentials are refused;',
      'personal data is stored but hidden from model context. Outcomes: saved, ok (already known, also when the value',
      'restates one the property already holds in other words: the answer names it), pending, conflict, refused, unavailable.',
      'scope: "project" for what holds only in the codebase this session works in (its ports, paths, commands, build',
      'and test setup, conventions), so other repositories never see it; "global" (the default) for what holds',
      "everywhere: the user's own preferences and habits, facts about people, tools used across projects.",
      'cues: up to 8 short phrases, in English and in Chinese, that a later request needing this fact would use when',
      'it does not name it (for a test command: "run the tests", "make sure nothing is broken", "跑测试", "单测"); they',
      'help the fact be found and are never shown as its value.',
    ].join(' '),
    parameters: toolParameters(writeArgs),
    output: {
      schema: WRITE_OUTPUT,
      render: (_args: unknown, value: WriteValue) => [
        { type: 'text', text: `outcome: ${value.outcome}\n${value.message}` },
      ],
    },
    async execute(args, exec) {
      // What the answer repeats of the arguments (a subject, a property, a field's name) never shows a credential.
      return maskEchoes(write(deps, args, exec), args)
    },
  }
}

/** One call, unmasked: parse, check the evidence, write, describe. */
function write(deps: ToolDeps, args: unknown, exec: ToolCall): WriteValue {
  const config = deps.config()
  const parsed = parseArgs(writeArgs, args)
  if (!parsed.ok) return failure('refused', `${parsed.message}. Nothing was stored.`)
  if (sessionPaused(deps.memory, exec.agent?.session)) return failure('refused', capitalized(PAUSED_TOOL_ANSWER))
  const a = parsed.value
  const scope = scopeOfCall(a.scope, exec.agent?.session)
  if ('refused' in scope) return failure('refused', `${scope.refused} Nothing was stored.`)
  let evidence: Evidence = a.evidence === undefined || a.evidence === 'inferred' ? 'observed' : a.evidence
  let note: string | null = null
  if (evidence === 'explicit_user') {
    const words = a.quote ?? a.value
    const carried = quoteCarries(words, a.value)
    if (!userSaid(exec.agent?.session, words)) {
      evidence = 'observed'
      note =
        a.quote === undefined
          ? "evidence lowered to observed: explicit_user needs the user's own words as quote"
          : "evidence lowered to observed: the quote does not occur in the user's messages of this conversation"
    } else if (!carried.carries) {
      evidence = 'observed'
      note = `evidence lowered to observed: ${shortfallNote(carried.reason)}`
    }
  }
  const answer = deps.memory.write(
    {
      subject: a.subject,
      property: a.property,
      value: a.value,
      evidence,
      quote: a.quote,
      ...scope,
      qualifiers: a.qualifiers,
      cues: a.cues,
      confidence: a.confidence,
      multi: a.multi,
      validFrom: a.valid_from,
      validTo: a.valid_to,
      inferred: a.evidence === 'inferred',
      origin: 'tool',
      anchor: anchorOf(exec.agent),
    },
    config,
  )
  return describeWrite(answer, note, config.displayTimeZone)
}

/**
 * The scope a call asked for: the session's project for `"project"`, else the label as given. A project's own scope
 * text cannot be typed: a path is not something the model should name or see.
 * @param scope - the scope argument, if any.
 * @param session - the calling session, if any.
 * @returns the write's scope or project, or why the call is refused.
 */
function scopeOfCall(
  scope: string | undefined,
  session: SessionView | undefined,
): { scope?: string | undefined; project?: ProjectRef } | { refused: string } {
  if (isProjectWord(scope)) {
    const project = projectOfSession(session)
    if (project === null)
      return {
        refused:
          'scope "project" needs the session\'s working directory, and this session has none; use "global" or a label.',
      }
    return { project }
  }
  if (scope !== undefined && projectKeyOfScope(scope) !== null)
    return { refused: 'a scope cannot start with "project:"; use "project" for this session\'s project.' }
  return { scope }
}

/**
 * Turn a write answer into the tool value and its sentence.
 * @param answer - what the service did.
 * @param note - an evidence downgrade note, if any.
 * @param timeZone - display zone.
 * @returns the tool value.
 */
export function describeWrite(answer: WriteAnswer, note: string | null, timeZone: string): WriteValue {
  const suffix = note === null ? '' : ` Note: ${note}.`
  switch (answer.kind) {
    case 'refused':
    case 'unavailable':
      return failure(answer.kind, `${answer.message}. Nothing was stored.`)
    case 'proposed':
      return {
        ...empty(
          'pending',
          `Queued as proposal #${answer.proposalId}${answer.existing ? ' (already queued)' : ''}: ${answer.reason === 'inferred' ? 'an inferred value' : 'a value below the 0.6 confidence floor'} is reviewed by the user before it becomes a fact.${suffix}`,
        ),
        proposalId: answer.proposalId,
        note,
      }
    case 'saved': {
      const fact = answer.fact
      const replaced = [...answer.superseded, ...answer.retired].map((f) => ({ id: f.id, value: shown(f) }))
      const scheduled =
        fact.status === 'scheduled' ? ` It becomes current on ${formatInstant(fact.validFrom, timeZone)}.` : ''
      const replacing =
        answer.superseded.length === 0
          ? ''
          : ` It replaces ${answer.superseded.map((f) => `${shown(f)} (#${f.id})`).join(', ')}, kept as history.`
      const settled =
        answer.retired.length === 0
          ? ''
          : ` The conflict is settled: ${answer.retired.map((f) => `${shown(f)} (#${f.id})`).join(', ')} retired.`
      return {
        ...factValue(
          'saved',
          fact,
          `${fact.status === 'scheduled' ? 'Scheduled' : 'Stored'} #${fact.id}: ${label(fact)} (${fact.evidence}).${scheduled}${replacing}${settled}${sensitiveNote(fact)}${suffix}`,
        ),
        replaced,
        note,
      }
    }
    case 'duplicate': {
      const fact = answer.fact
      const replaced = [...answer.superseded, ...answer.retired].map((f) => ({ id: f.id, value: shown(f) }))
      if (answer.settled) {
        return {
          ...factValue(
            'saved',
            fact,
            `The user's statement settles the conflict: ${label(fact)} (#${fact.id}) is current; ${replaced.map((r) => `${r.value} (#${r.id})`).join(', ')} retired.${suffix}`,
          ),
          replaced,
          note,
        }
      }
      const upgraded = answer.upgraded ? ` Evidence raised to ${fact.evidence}.` : ''
      if (answer.restatement !== null) {
        return {
          ...factValue(
            'ok',
            fact,
            `Already known as #${fact.id}: ${label(fact)}. The value written restates it in other words (similarity ${answer.restatement.similarity.toFixed(2)}), so no second row was made; this observation was added to the sources of #${fact.id}.${upgraded}${suffix}`,
          ),
          note,
        }
      }
      return {
        ...factValue(
          'ok',
          fact,
          `Already known as #${fact.id}: ${label(fact)}; this observation was added to its sources.${upgraded}${suffix}`,
        ),
        note,
      }
    }
    case 'folded': {
      const fact = answer.fact
      const seen = `seen ${fact.foldedCount + 1} times`
      if (!answer.tookValue) {
        return {
          ...factValue(
            'ok',
            fact,
            `Already known as #${fact.id} with a later date: ${label(fact)} (${seen}); this earlier line was added to its fold history.${suffix}`,
          ),
          note,
        }
      }
      return {
        ...factValue(
          'saved',
          fact,
          `Folded into #${fact.id}, the same line on another day: ${label(fact)} (${fact.evidence}, ${seen}). The earlier line "${answer.prior}" is kept in its fold history.${suffix}`,
        ),
        note,
      }
    }
    case 'conflict': {
      const fact = answer.fact
      const rivals = answer.rivals.map((f) => ({ id: f.id, value: shown(f), evidence: f.evidence }))
      return {
        ...factValue(
          'conflict',
          fact,
          `Recorded #${fact.id} as a CONFLICT: ${label(fact)} (${fact.evidence}) contradicts ${rivals.map((r) => `${r.value} (#${r.id}, ${r.evidence})`).join(', ')}, which stays current. A weaker source does not replace a stronger one; memory_search reports needs_selection until the user settles it.${suffix}`,
        ),
        rivals,
        note,
      }
    }
  }
}

function empty(outcome: WriteValue['outcome'], message: string): WriteValue {
  return {
    outcome,
    message,
    factId: null,
    proposalId: null,
    status: null,
    evidence: null,
    sensitivity: null,
    replaced: [],
    rivals: [],
    note: null,
  }
}

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1)

function failure(outcome: 'refused' | 'unavailable', message: string): WriteValue {
  return empty(outcome, message)
}

function factValue(outcome: WriteValue['outcome'], fact: Fact, message: string): WriteValue {
  return {
    ...empty(outcome, message),
    factId: fact.id,
    status: fact.status,
    evidence: fact.evidence,
    sensitivity: fact.sensitivity,
  }
}

function label(fact: Fact): string {
  return `${fact.subject} · ${fact.property} = ${shown(fact)}${fact.projectName === null ? '' : ` (project ${fact.projectName})`}`
}

/** A sensitive value is never echoed back. */
function shown(fact: Fact): string {
  return fact.sensitivity === null ? fact.value : `[${fact.sensitivity} withheld]`
}

function sensitiveNote(fact: Fact): string {
  if (fact.sensitivity === null) return ''
  if (fact.sensitivity === 'credential')
    return ' It looks like a credential: stored masked for the user and never shown to the model.'
  return ` It holds personal data (${fact.sensitivity}): kept for the user, withheld from the directory and search unless the user allows it.`
}
