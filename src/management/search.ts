/**
 * search: what memory_search would find for a question typed into the library's search box, answered through the
 * same retrieval core and privacy switches as the tool (the lexical channels, and the semantic ones when set up).
 * It reads only: no generation moves.
 */
import { ok, verb } from './verb.ts'

/** search: the memory_search value for one query, with the store's generation. */
export const searchVerb = verb('search', {
  async run(body, context) {
    const value = await context.memory.search({
      query: body.query.trim(),
      limit: body.limit ?? context.config.searchLimit,
      asOf: undefined,
      // The page works in no session, so no project is home: every project's facts are ranked and marked.
      project: null,
      otherProjects: 'mark',
    })
    return ok({ ...value, generation: context.stores.db.generation() })
  },
})
