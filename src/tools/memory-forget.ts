/**
 * The memory_forget tool: forget one fact by id, or a subject (optionally one property), tombstoning each claim in
 * every scope; the answer names the scopes it reached and counts what a subject forget left in other projects.
 */
import type { ForgetAnswer, ForgetReach } from '../fact-memory.ts'
import type { ToolCall, ToolSpec } from '../host/ports.ts'
import { toolOutputSchema } from './output-schema.ts'
import { forgetValueSchema, type forgottenViewSchema } from './tool-values.schema.ts'
import type { WireOf } from '../wire.schema.ts'
import { projectOfSession } from '../project/project-locator.ts'
import { GLOBAL_SCOPE, projectKeyOfScope, projectNameOf } from '../project/project-ref.ts'
import type { ProjectFactCount } from '../types.ts'
import { maskEchoes } from './echo-mask.ts'
import type { ToolDeps } from './memory-search.ts'
import { forgetArgs, forgetShape, parseArgs, toolParameters } from './tool-args.schema.ts'

/** One forgotten fact as the model reads it; `scope` is `global`, `label <text>` or `project <name>`, never a path. */
export type ForgottenView = WireOf<typeof forgottenViewSchema>

/** The canonical value of memory_forget (fields documented in tool-values.schema.ts). */
export type ForgetValue = WireOf<typeof forgetValueSchema>

/** memory_forget's output schema, generated from the zod schema of its value. */
const FORGET_OUTPUT = toolOutputSchema(forgetValueSchema)

/**
 * Build the memory_forget tool.
 * @param deps - the service and the live configuration.
 * @returns the tool definition.
 */
export function memoryForgetTool(deps: ToolDeps): ToolSpec {
  return {
    name: 'memory_forget',
    description: [
      'Forget facts when the user asks: pass fact_id (the #id shown by memory_search) for one fact, or subject (and',
      'optionally property) for all of its facts. Forgotten facts leave search and the directory, and their claims are',
      'tombstoned in every scope, so the same claim cannot be written back later, globally, under a label or in any',
      "project. By subject it forgets the global and labelled facts and this project's, never another project's: the",
      'answer lists the scopes it reached (reached) and how many facts of the subject other projects still hold',
      '(untouched); by fact_id it lists current facts of other scopes holding the same claim (sameClaimKept). Tell the',
      'user, and forget those by fact_id if they ask. Outcomes: ok, not_found, refused, unavailable.',
    ].join(' '),
    parameters: toolParameters(forgetShape),
    output: {
      schema: FORGET_OUTPUT,
      render: (_args: unknown, value: ForgetValue) => [
        { type: 'text', text: `outcome: ${value.outcome}\n${value.message}` },
      ],
    },
    async execute(args, exec) {
      // What the answer repeats of the arguments (a subject, a property, a field's name) never shows a credential.
      return maskEchoes(forget(deps, args, exec), args)
    },
  }
}

/** One call, unmasked: parse, forget, describe. */
function forget(deps: ToolDeps, args: unknown, exec: ToolCall): ForgetValue {
  const parsed = parseArgs(forgetArgs, args)
  if (!parsed.ok)
    return {
      outcome: 'refused',
      message: `${parsed.message}. Nothing was forgotten.`,
      forgotten: [],
      reached: [],
      untouched: [],
      sameClaimKept: [],
    }
  const a = parsed.value
  return describeForget(
    'fact_id' in a
      ? deps.memory.forgetById(a.fact_id)
      : deps.memory.forgetBySubject(a.subject, a.property, projectOfSession(exec.agent?.session)),
  )
}

/**
 * Turn a forget answer into the tool value: what was forgotten and in which scope, which scopes the forget reached,
 * and which projects it left alone still hold facts of the subject.
 * @param answer - what the service did.
 * @returns the tool value.
 */
export function describeForget(answer: ForgetAnswer): ForgetValue {
  switch (answer.kind) {
    case 'unavailable':
      return {
        outcome: 'unavailable',
        message: `${answer.message}. Nothing was forgotten.`,
        forgotten: [],
        reached: [],
        untouched: [],
        sameClaimKept: [],
      }
    case 'not_found': {
      const reached = reachedScopes(answer.reach, [])
      const untouched = untouchedOf(answer.untouched)
      return {
        outcome: 'not_found',
        message: `${answer.message}; nothing was forgotten.${reachedSentence(answer.reach, reached)}${untouchedSentence(untouched)}`,
        forgotten: [],
        reached,
        untouched,
        sameClaimKept: [],
      }
    }
    case 'forgotten': {
      const forgotten = answer.facts.map(
        (fact): ForgottenView => ({
          id: fact.id,
          subject: fact.subject,
          property: fact.property,
          value: fact.sensitivity === null ? fact.value : `[${fact.sensitivity} withheld]`,
          scope: scopeName(fact),
        }),
      )
      const reached = reachedScopes(answer.reach, forgotten)
      const untouched = untouchedOf(answer.untouched)
      const sameClaimKept = answer.sameClaimKept.map((fact) => ({ id: fact.id as number, scope: scopeName(fact) }))
      const list = forgotten.map((f) => `#${f.id} ${f.subject} · ${f.property} = ${f.value} (${f.scope})`).join('; ')
      const one = forgotten.length === 1
      return {
        outcome: 'ok',
        message:
          `Forgot ${forgotten.length} fact${one ? '' : 's'}: ${list}.${reachedSentence(answer.reach, reached)} ${one ? 'Its claim is' : 'Their claims are'}` +
          ` tombstoned in every scope: the same claim cannot be written back, globally, under a label or in any project.${untouchedSentence(untouched)}` +
          keptSentence(sameClaimKept),
        forgotten,
        reached,
        untouched,
        sameClaimKept,
      }
    }
  }
}

/** A fact's scope as the model reads it: `global`, `label <text>` or `project <name>`. */
function scopeName(fact: { readonly scope: string; readonly projectName: string | null }): string {
  if (fact.scope === GLOBAL_SCOPE) return 'global'
  const key = projectKeyOfScope(fact.scope)
  return key === null ? `label ${fact.scope}` : `project ${fact.projectName ?? projectNameOf(key)}`
}

/** The scopes a forget could reach, by name. */
function reachedScopes(reach: ForgetReach, forgotten: readonly ForgottenView[]): string[] {
  switch (reach.kind) {
    case 'fact':
      return [...new Set(forgotten.map((fact) => fact.scope))]
    case 'every_scope':
      return ['every scope']
    case 'session':
      return ['global', 'labels', ...(reach.project === null ? [] : [`project ${reach.project.name}`])]
  }
}

function untouchedOf(counts: readonly ProjectFactCount[]): ForgetValue['untouched'] {
  return counts.map((count) => ({ project: count.projectName, facts: count.facts }))
}

/** The sentence that tells the model what a subject forget left in other projects; '' when nothing. */
function untouchedSentence(untouched: ForgetValue['untouched']): string {
  if (untouched.length === 0) return ''
  const total = untouched.reduce((sum, entry) => sum + entry.facts, 0)
  const where = untouched.map((entry) => `${entry.project}: ${entry.facts}`).join(', ')
  return (
    ` Not reached: ${total} fact${total === 1 ? '' : 's'} of this subject in ${untouched.length === 1 ? 'another project' : 'other projects'} (${where}),` +
    ' which a forget by subject from this session leaves alone; tell the user, and if they ask, forget them by fact_id' +
    ' (memory_search lists them, marked with their project) or on the memory page.'
  )
}

/** The sentence that names the current facts elsewhere holding a claim just tombstoned; '' when none. */
function keptSentence(kept: ForgetValue['sameClaimKept']): string {
  if (kept.length === 0) return ''
  const rows = kept.map((fact) => `#${fact.id} (${fact.scope})`).join(', ')
  return (
    ` The same claim still stands as ${rows}: the tombstone keeps it from being written again, but ${kept.length === 1 ? 'that fact stays' : 'those facts stay'}` +
    ' until forgotten too; tell the user, and forget by fact_id if they mean it everywhere.'
  )
}

/** The sentence that names the scopes a forget by subject reached; '' for a forget by id. */
function reachedSentence(reach: ForgetReach, reached: readonly string[]): string {
  return reach.kind === 'fact' ? '' : ` Reached: ${reached.join(', ')}.`
}
