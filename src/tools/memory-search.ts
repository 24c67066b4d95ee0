/** The memory_search tool: parse arguments, search under the privacy switches and budget, render the answer. */
import type { ResolvedConfig } from '../config.ts'
import type { FactMemory } from '../fact-memory.ts'
import type { ToolSpec } from '../host/ports.ts'
import { toolOutputSchema } from './output-schema.ts'
import { projectOfSession } from '../project/project-locator.ts'
import { renderSearchText, searchFailure, type SearchValue } from '../retrieval/render.ts'
import { searchValueSchema } from '../retrieval/search-value.schema.ts'
import { parseArgs, searchArgs, toolParameters } from './tool-args.schema.ts'
import { PAUSED_TOOL_ANSWER } from '../pause/pause-words.ts'
import { sessionPaused } from '../pause/session-pause.ts'

/** What the memory tools need from the plugin. */
export interface ToolDeps {
  readonly memory: FactMemory
  /** The live configuration, read at each call. */
  readonly config: () => ResolvedConfig
}

/** memory_search's output schema, generated from the zod schema of its value. */
const SEARCH_OUTPUT = toolOutputSchema(searchValueSchema)

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
        const query =
          typeof (args as { query?: unknown } | null)?.query === 'string'
            ? String((args as { query: string }).query).slice(0, 200)
            : ''
        return searchFailure('refused', query, parsed.message, config.displayTimeZone)
      }
      if (sessionPaused(deps.memory, exec.agent?.session))
        return searchFailure('refused', parsed.value.query.trim(), PAUSED_TOOL_ANSWER, config.displayTimeZone)
      return deps.memory.search(
        {
          query: parsed.value.query.trim(),
          limit: parsed.value.limit ?? config.searchLimit,
          asOf: parsed.value.as_of,
          project: projectOfSession(exec.agent?.session),
          otherProjects: 'mark',
        },
        config,
      )
    },
  }
}
