/**
 * What the graph tab says about what it shows: the facts behind a star, a selection's title and the toolbar's
 * caption. Pure; the counts are always those of what is listed or drawn.
 */
import type { GraphPayload } from '../src/graph-types.ts'
import { countOf } from './format.ts'

/**
 * The facts behind a star: those of every drawn edge touching it, outgoing (its own facts) and incoming (facts
 * whose value names it), each once. The star's `factCount` counts the same facts.
 * @param payload - the drawn graph.
 * @param nodeId - the star.
 * @returns fact ids, ascending.
 */
export function nodeFactIds(payload: GraphPayload, nodeId: string): number[] {
  const ids = new Set<number>()
  for (const edge of payload.edges) {
    if (edge.source === nodeId || edge.target === nodeId) for (const id of edge.factIds) ids.add(id)
  }
  return [...ids].sort((a, b) => a - b)
}

/**
 * A selection's title: what was clicked and how many facts the panel lists ("Bob Martinez · 5 facts"), or how many
 * of how many when it lists fewer ("prod · 100 of 230 facts").
 * @param label - the star's or edge's label.
 * @param shown - facts listed.
 * @param total - facts behind it.
 * @returns the title.
 */
export function selectionTitle(label: string, shown: number, total: number): string {
  const count =
    shown >= total ? countOf(shown, 'fact') : `${shown.toLocaleString('en-US')} of ${countOf(total, 'fact')}`
  return `${label} · ${count}`
}

/**
 * The toolbar's caption: nodes and edges drawn, then the subjects and facts the budget left out, if any.
 * @param payload - the drawn graph.
 * @returns "115 nodes · 148 edges", with " · 2 more subjects and 40 more facts not drawn" when the budget cut.
 */
export function graphCaption(payload: GraphPayload): string {
  const drawn = `${countOf(payload.nodes.length, 'node')} · ${countOf(payload.edges.length, 'edge')}`
  const left = [
    payload.omitted.entities > 0 ? `${countOf(payload.omitted.entities, 'more subject')}` : '',
    payload.omitted.facts > 0 ? `${countOf(payload.omitted.facts, 'more fact')}` : '',
  ].filter((part) => part !== '')
  return left.length === 0 ? drawn : `${drawn} · ${left.join(' and ')} not drawn`
}
