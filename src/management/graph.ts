/** The graph verb: the nebula or the one-hop tree, projected from the current rows at request time, never stored. */
import { projectGraph } from '../graph.ts'
import { ok, refuse, verb } from './verb.ts'
import { graphBody } from './wire.schema.ts'
import type { GraphPayload, GraphScope } from '../graph-types.ts'
import type { GraphEntityRow, GraphStore } from '../store/graph-store.ts'
import type { StoreSet } from '../store/store-set.ts'
import { canonicalEntity } from '../text/normalize.ts'
import { searchTerms } from '../text/tokenize.ts'

/**
 * The last nebula per open store and scope. Every committed write bumps the generation, so a projection made at the
 * current generation is the current projection: reopening the tab on an unchanged store costs nothing, and any
 * change is re-read.
 */
const nebulaMemo = new WeakMap<StoreSet, Map<GraphScope, GraphPayload>>()

/**
 * graph: `{view?: 'nebula' | 'tree', scope?: 'current' | 'all', center?}`. The nebula projects every current row;
 * the tree projects the rows of the centre and the rows whose value names it, and refuses an unknown centre with
 * not_found (a known centre without relations answers itself alone).
 */
export const graphVerb = verb({
  schema: graphBody,
  run(body, context) {
    const graph = context.stores.graph
    const scope = body.scope ?? 'current'
    // Read before the rows: a write landing in between makes the page's next fenced edit stale, never wrongly current.
    const generation = context.stores.db.generation()
    if (body.view !== 'tree' || body.center === undefined) {
      const memo = nebulaMemo.get(context.stores) ?? new Map<GraphScope, GraphPayload>()
      nebulaMemo.set(context.stores, memo)
      const cached = memo.get(scope)
      if (cached?.generation === generation) return ok({ ...cached })
      const entities = graph.entities()
      const rows = graph.currentRows(scope, new Map(entities.map((entity) => [entity.id, entity.key])))
      const payload = projectGraph(rows, displayNames(entities), { view: 'nebula', scope, generation })
      memo.set(scope, payload)
      return ok({ ...payload })
    }
    const center = findEntity(graph, body.center)
    if (center === undefined) return refuse('not_found', `no subject is known as ${JSON.stringify(body.center)}`)
    const outgoing = graph.rowsOf(center, scope)
    const incoming = graph.rowsMentioning(searchTerms(center.key), scope)
      .filter((row) => row.entityKey !== center.key && canonicalEntity(row.value) === center.key)
    const entities = graph.entitiesByKeys([center.key, ...incoming.map((row) => row.entityKey), ...outgoing.map((row) => canonicalEntity(row.value))])
    return ok({ ...projectGraph([...outgoing, ...incoming], displayNames(entities), { view: 'tree', scope, center: center.key, generation }) })
  },
})

/** The entity a centre names: an exact entity key first, else the canonical key of a subject as written. */
function findEntity(graph: GraphStore, center: string): GraphEntityRow | undefined {
  return graph.entitiesByKeys([center])[0] ?? graph.entitiesByKeys([canonicalEntity(center)])[0]
}

function displayNames(entities: readonly GraphEntityRow[]): Map<string, string> {
  return new Map(entities.map((entity) => [entity.key, entity.display]))
}
