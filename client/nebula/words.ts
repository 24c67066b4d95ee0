/** The nebula's words: counts with their nouns, an edge's description, the legend and the canvas's accessible name. */
import type { GraphEdge, GraphPayload } from '../../src/graph-types.ts'
import { edgeWords } from '../format.ts'

/** "1 contested relation", "8 contested relations". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/**
 * @param edge - a drawn edge
 * @returns its property, status and fact count, as the hover label shows it
 */
export function describeEdge(edge: GraphEdge): string {
  const status = edge.contested ? 'contested, not confirmed' : edge.scheduled ? 'scheduled' : 'current'
  return `${edgeWords(edge)} · ${status} · ${plural(edge.factIds.length, 'fact')}`
}

/** The legend's lines and the canvas's accessible name for one drawing. */
export interface Captions {
  /** Legend lines, each with its inline style. */
  readonly legend: readonly { readonly css: string; readonly text: string }[]
  readonly ariaLabel: string
}

/**
 * @param payload - the drawn graph
 * @returns the legend (dashed contested, faint scheduled) and the accessible name counting nodes and relations
 */
export function captionsOf(payload: GraphPayload): Captions {
  const contested = payload.edges.filter((edge) => edge.contested).length
  const scheduled = payload.edges.filter((edge) => edge.scheduled && !edge.contested).length
  const legend: { css: string; text: string }[] = []
  if (contested > 0)
    legend.push({
      css: 'color:var(--nebula-warn)',
      text: `┄ dashed: ${plural(contested, 'contested relation')}, not confirmed`,
    })
  if (scheduled > 0)
    legend.push({ css: 'opacity:0.8', text: `faint: ${plural(scheduled, 'scheduled relation')}, not current yet` })
  const ariaLabel =
    `Fact graph: ${payload.nodes.length} nodes and ${payload.edges.length} relations` +
    (contested > 0 ? `, ${contested} contested (dashed, not confirmed)` : '')
  return { legend, ariaLabel }
}
