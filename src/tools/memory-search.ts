/** The memory_search tool: parse arguments, search under the privacy switches and budget, render the answer. */
import type { ResolvedConfig } from '../config.ts'
import type { FactMemory } from '../fact-memory.ts'
import type { OutputSchema, ToolSpec } from '../host/ports.ts'
import { nullable } from './output-schema.ts'
import { projectOfSession } from '../project/project-locator.ts'
import { renderSearchText, searchFailure, type SearchValue } from '../retrieval/render.ts'
import { parseArgs, searchArgs, toolParameters } from './tool-args.schema.ts'
import { PAUSED_TOOL_ANSWER } from '../pause/pause-words.ts'
import { sessionPaused } from '../pause/session-pause.ts'

/** What the memory tools need from the plugin. */
export interface ToolDeps {
  readonly memory: FactMemory
  /** The live configuration, read at each call. */
  readonly config: () => ResolvedConfig
}


const SEARCH_OUTPUT: OutputSchema = {
  type: 'object',
  properties: {
    outcome: { type: 'string', enum: ['ok', 'not_found', 'needs_selection', 'refused', 'unavailable'] },
    query: { type: 'string' },
    asOf: nullable({ type: 'string' }),
    channels: { type: 'array', items: { type: 'string' } },
    skipped: { type: 'array', items: { type: 'string' } },
    degraded: {
      type: 'array',
      items: {
        type: 'object',
        properties: { channel: { type: 'string' }, code: { type: 'string' }, reason: { type: 'string' } },
        required: ['channel', 'code', 'reason'],
      },
    },
    rerank: nullable({ type: 'string', enum: ['calibrated', 'rerank_uncalibrated'] }),
    rerankCalibration: nullable({ type: 'string', enum: ['supplied', 'library'] }),
    rerankFiltered: { type: 'integer' },
    unvectored: { type: 'integer' },
    timeZone: { type: 'string' },
    omitted: { type: 'integer' },
    message: nullable({ type: 'string' }),
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          subject: { type: 'string' },
          property: { type: 'string' },
          qualifiers: { type: 'object' },
          contested: { type: 'boolean' },
          multi: { type: 'boolean' },
          moreValues: { type: 'integer' },
          moreValuesShown: { type: 'boolean' },
          project: nullable({ type: 'string', description: 'The project the fact belongs to, by name; null for global facts.' }),
          otherProject: { type: 'boolean', description: 'True when that project is not the one this session works in.' },
          matchedAlias: nullable({ type: 'string', description: 'The subject\'s old name the query named it by (it was renamed since); null otherwise.' }),
          values: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'integer' },
                value: { type: 'string' },
                status: { type: 'string' },
                evidence: { type: 'string' },
                validFrom: { type: 'string' },
                validTo: nullable({ type: 'string' }),
                observedAt: { type: 'string' },
                source: { type: 'string' },
                quote: nullable({ type: 'string' }),
                sensitive: { type: 'boolean' },
                sensitivity: nullable({ type: 'string', description: 'The kind of sensitive data: email, phone, id_number or credential.' }),
                matched: { type: 'boolean' },
                foldedCount: { type: 'integer' },
              },
              required: ['id', 'value', 'status', 'evidence', 'validFrom', 'validTo', 'observedAt', 'source', 'quote', 'sensitive', 'sensitivity', 'matched', 'foldedCount'],
            },
          },
        },
        required: ['subject', 'property', 'qualifiers', 'contested', 'multi', 'values', 'moreValues', 'moreValuesShown', 'project', 'otherProject', 'matchedAlias'],
      },
    },
  },
  required: ['outcome', 'query', 'asOf', 'channels', 'skipped', 'degraded', 'rerank', 'rerankCalibration', 'rerankFiltered', 'unvectored', 'timeZone', 'results', 'omitted', 'message'],
}

/**
 * Build the memory_search tool.
 * @param deps - the service and the live configuration.
 * @returns the tool definition.
 */
export function memorySearchTool(deps: ToolDeps): ToolSpec {
  return {
    name: 'memory_search',
    description: [
      'Search the cross-session fact memory: facts (subject · property · value) recorded in earlier conversations,',
      'each with its dates, evidence level and source. Matches words (Chinese and English) and exact identifiers such as',
      'ports, paths, URLs, versions and package names. limit counts matching facts. A subject · property with one value',
      'shows its current value first and older values below it; one that holds many values lists those that match and',
      'says how many others it holds. Pass as_of (YYYY-MM-DD) to ask what was current on that day.',
      'Facts of the project this session works in and global facts come first; facts of other projects (other',
      'repositories) follow, each marked "another project: <name>" — they hold there, not here.',
      'With an embedding endpoint configured it also matches by meaning, across languages; the answer names the channels that ran and any that degraded.',
      'Outcomes: ok, not_found (the store has no record — not that the claim is false), needs_selection (values',
      'conflict and the user has not settled them: do not pick one), refused, unavailable.',
    ].join(' '),
    parameters: toolParameters(searchArgs),
    output: {
      schema: SEARCH_OUTPUT,
      render: (_args: unknown, value: SearchValue) => [{ type: 'text', text: renderSearchText(value) }],
    },
    isConcurrencySafe: () => true,
    async execute(args, exec) {
      const config = deps.config()
      const parsed = parseArgs(searchArgs, args)
      if (!parsed.ok) {
        const query = typeof (args as { query?: unknown } | null)?.query === 'string' ? String((args as { query: string }).query).slice(0, 200) : ''
        return searchFailure('refused', query, parsed.message, config.displayTimeZone)
      }
      if (sessionPaused(deps.memory, exec.agent?.session)) return searchFailure('refused', parsed.value.query.trim(), PAUSED_TOOL_ANSWER, config.displayTimeZone)
      return deps.memory.search({
        query: parsed.value.query.trim(),
        limit: parsed.value.limit ?? config.searchLimit,
        asOf: parsed.value.as_of,
        project: projectOfSession(exec.agent?.session),
        otherProjects: 'mark',
      }, config)
    },
  }
}
