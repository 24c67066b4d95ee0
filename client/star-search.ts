/**
 * Pure matching for the nebula's "Find a star" box: which drawn subject a typed name means. Names compare folded
 * (Unicode compatibility form, case, runs of spaces), so `ＧＲＡＦＡＮＡ ` finds grafana and 王芳 finds 王芳. An alias
 * (an old name, the name in another language) is resolved by the host, which knows the aliases; this file only
 * looks among the drawn stars.
 */
import type { GraphNode } from '../src/graph-types.ts'

/**
 * @param text - a name as typed or drawn
 * @returns the form two names are compared in
 */
export function foldName(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim()
}

/**
 * The drawn subject a name means exactly: its label or its entity key, folded.
 * @param query - the typed name
 * @param nodes - the drawn nodes
 * @returns the subject's star, or undefined when no subject is called that
 */
export function exactStar(query: string, nodes: readonly GraphNode[]): GraphNode | undefined {
  const wanted = foldName(query)
  if (wanted === '') return undefined
  return nodes.find(
    (node) =>
      node.kind === 'entity' &&
      (foldName(node.label) === wanted || (node.entityKey !== null && foldName(node.entityKey) === wanted)),
  )
}

/**
 * The drawn subject whose name starts with, else contains, the typed text: the one with the most edges, then the
 * shortest name, then the first by id, so the same text always finds the same star.
 * @param query - the typed text
 * @param nodes - the drawn nodes
 * @returns a subject's star, or undefined when no subject's name holds the text
 */
export function partialStar(query: string, nodes: readonly GraphNode[]): GraphNode | undefined {
  const wanted = foldName(query)
  if (wanted === '') return undefined
  const subjects = nodes.filter((node) => node.kind === 'entity')
  const best = (list: GraphNode[]): GraphNode | undefined =>
    list.sort((a, b) => b.degree - a.degree || a.label.length - b.label.length || (a.id < b.id ? -1 : 1))[0]
  return (
    best(subjects.filter((node) => foldName(node.label).startsWith(wanted))) ??
    best(subjects.filter((node) => foldName(node.label).includes(wanted)))
  )
}
