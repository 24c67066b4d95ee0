/** The memory_forget tool: forget one fact by id, or a subject (optionally one property), tombstoning each claim. */
import type { ForgetAnswer } from '../fact-memory.ts'
import type { OutputSchema, ToolCall, ToolSpec } from '../host/ports.ts'
import { projectOfSession } from '../project/project-locator.ts'
import { maskEchoes } from './echo-mask.ts'
import type { ToolDeps } from './memory-search.ts'
import { forgetArgs, parseArgs } from './tool-args.schema.ts'

/** The canonical value of memory_forget. */
export interface ForgetValue {
  readonly outcome: 'ok' | 'not_found' | 'refused' | 'unavailable'
  readonly message: string
  readonly forgotten: readonly { readonly id: number; readonly subject: string; readonly property: string; readonly value: string }[]
}

const FORGET_OUTPUT: OutputSchema = {
  type: 'object',
  properties: {
    outcome: { type: 'string', enum: ['ok', 'not_found', 'refused', 'unavailable'] },
    message: { type: 'string' },
    forgotten: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'integer' }, subject: { type: 'string' }, property: { type: 'string' }, value: { type: 'string' } },
        required: ['id', 'subject', 'property', 'value'],
      },
    },
  },
  required: ['outcome', 'message', 'forgotten'],
}

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
      'tombstoned so the same claim cannot be written back later. By subject it forgets the global facts and this',
      'project\'s, never another project\'s (those only by fact_id). Outcomes: ok, not_found, refused, unavailable.',
    ].join(' '),
    parameters: {
      type: 'object',
      properties: {
        fact_id: { type: 'integer', description: 'The id of one fact to forget.' },
        subject: { type: 'string', description: 'Forget every fact of this subject (instead of fact_id).' },
        property: { type: 'string', description: 'With subject: forget only this property.' },
      },
      additionalProperties: false,
    },
    output: {
      schema: FORGET_OUTPUT,
      render: (_args: unknown, value: ForgetValue) => [{ type: 'text', text: `outcome: ${value.outcome}\n${value.message}` }],
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
  if (!parsed.ok) return { outcome: 'refused', message: `${parsed.message}. Nothing was forgotten.`, forgotten: [] }
  const a = parsed.value
  return describeForget('fact_id' in a ? deps.memory.forgetById(a.fact_id) : deps.memory.forgetBySubject(a.subject, a.property, projectOfSession(exec.agent?.session)))
}

/**
 * Turn a forget answer into the tool value.
 * @param answer - what the service did.
 * @returns the tool value.
 */
export function describeForget(answer: ForgetAnswer): ForgetValue {
  switch (answer.kind) {
    case 'not_found':
      return { outcome: 'not_found', message: `${answer.message}; nothing was forgotten.`, forgotten: [] }
    case 'unavailable':
      return { outcome: 'unavailable', message: `${answer.message}. Nothing was forgotten.`, forgotten: [] }
    case 'forgotten': {
      const forgotten = answer.facts.map((fact) => ({
        id: fact.id, subject: fact.subject, property: fact.property,
        value: fact.sensitivity === null ? fact.value : `[${fact.sensitivity} withheld]`,
      }))
      const list = forgotten.map((f) => `#${f.id} ${f.subject} · ${f.property} = ${f.value}`).join('; ')
      return {
        outcome: 'ok',
        message: `Forgot ${forgotten.length} fact${forgotten.length === 1 ? '' : 's'}: ${list}. Their claims are tombstoned: the same claim cannot be written back.`,
        forgotten,
      }
    }
  }
}
