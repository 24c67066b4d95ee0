/** The graph verb: the nebula or the one-hop tree, projected from the current rows at request time, never stored. */
import { projectGraph } from '../graph.ts'
import { GrowingEntityNamer } from '../graph-entity-names.ts'
import { ok, refuse, verb } from './verb.ts'
import { GRAPH_LIMITS, type GraphPayload, type GraphScope } from '../graph-types.ts'
import type { GraphEntityRow, GraphStore } from '../store/graph-store.ts'
import type { OpenStores } from '../store/store-set.ts'
import { canonicalEntity } from '../text/normalize.ts'
import { searchTerms } from '../text/tokenize.ts'

/**
 * Per open store: the last nebula per scope, and the namer over every entity key. Every committed write bumps the
 * generation, so a projection made at the current generation is the current projection: reopening the tab on an
 * unchanged store costs nothing, and any change is re-read. Entities are only ever added (until the library is
 * cleared, which changes the entity epoch), so the namer is kept and learns only the entities added since.
 */
interface NebulaMemo {
  readonly payloads: Map<GraphScope, GraphPayload>
  namer: { readonly lastEntity: number; readonly epoch: string; readonly namer: GrowingEntityNamer } | undefined
}

const nebulaMemo = new WeakMap<OpenStores, NebulaMemo>()

/**
 * graph: `{view?: 'nebula' | 'tree', scope?: 'current' | 'all', center?}`. The store chooses the nebula's entities
 * (by their current facts, within the budget) and reads only the rows behind them; the tree projects the rows of
 * the centre and the rows whose value names it, and refuses an unknown centre with not_found (a known centre
 * without relations answers itself alone).
 */
export const graphVerb = verb('graph', {
  run(body, context) {
    const graph = context.stores.graph
    const scope = body.scope ?? 'current'
    // Read before the rows: a write landing in between makes the page's next fenced edit stale, never wrongly current.
    const generation = context.stores.db.generation()
    if (body.view !== 'tree' || body.center === undefined) {
      const memo = nebulaMemo.get(context.stores) ?? { payloads: new Map<GraphScope, GraphPayload>(), namer: undefined }
      nebulaMemo.set(context.stores, memo)
      const cached = memo.payloads.get(scope)
      if (cached?.generation === generation) return ok({ ...cached })
      // Entities are only ever added, so the namer learns the keys added since it last looked; a smaller newest id
      // (the library was cleared) starts it afresh.
      const lastEntity = graph.lastEntityId()
      const epoch = graph.entityEpoch()
      if (memo.namer === undefined || memo.namer.epoch !== epoch || lastEntity < memo.namer.lastEntity) {
        memo.namer = { lastEntity, epoch, namer: new GrowingEntityNamer() }
        memo.namer.namer.add(graph.entityKeys())
      } else if (lastEntity > memo.namer.lastEntity) {
        memo.namer.namer.add(graph.entityKeys(memo.namer.lastEntity))
        memo.namer = { lastEntity, epoch, namer: memo.namer.namer }
      }
      const namer = memo.namer.namer
      const payload = projectNebula(graph, scope, generation, (value, own) => namer.name(value, own))
      memo.payloads.set(scope, payload)
      return ok({ ...payload })
    }
    const center = findEntity(graph, body.center)
    if (center === undefined) return refuse('not_found', `no subject is known as ${JSON.stringify(body.center)}`)
    const outgoing = graph.rowsOf(center, scope)
    const incoming = graph
      .rowsMentioning(searchTerms(center.key), scope)
      .filter((row) => row.entityKey !== center.key && canonicalEntity(row.value) === center.key)
    const entities = graph.entitiesByKeys([
      center.key,
      ...incoming.map((row) => row.entityKey),
      ...outgoing.map((row) => canonicalEntity(row.value)),
    ])
    return ok({
      ...projectGraph([...outgoing, ...incoming], displayNames(entities), {
        view: 'tree',
        scope,
        center: center.key,
        generation,
      }),
    })
  },
})

/**
 * The nebula from the store's reads: the admitted entities' rows, with the known entities their values name (live
 * ones only), so a value naming an entity left out is not drawn as a plain value.
 */
function projectNebula(
  graph: GraphStore,
  scope: GraphScope,
  generation: number,
  names: (value: string, own: string) => string | undefined,
): GraphPayload {
  const limits = GRAPH_LIMITS.nebula
  const read = graph.nebula(scope, Math.min(limits.entities, limits.nodes), limits.edges, names)
  return projectGraph(read.rows, displayNames([...read.entities, ...read.named]), {
    view: 'nebula',
    scope,
    generation,
    admissible: new Set(read.entities.map((entity) => entity.key)),
    totals: read.totals,
  })
}

/** The entity a centre names: an exact entity key first, else the canonical key of a subject as written. */
function findEntity(graph: GraphStore, center: string): GraphEntityRow | undefined {
  return graph.entitiesByKeys([center])[0] ?? graph.entitiesByKeys([canonicalEntity(center)])[0]
}

function displayNames(entities: readonly GraphEntityRow[]): Map<string, string> {
  return new Map(entities.map((entity) => [entity.key, entity.display]))
}
