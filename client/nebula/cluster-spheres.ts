/**
 * Where the nebula's clusters sit: one sphere per cluster, sized by its member count, that no other cluster's sphere
 * touches. Spheres an earlier layout fixed stay where they are; the others are placed around them. Pure.
 */
import { spiralDirection } from './seeds.ts'

/** One cluster's sphere in layout space. */
export interface ClusterSphere {
  readonly id: number
  readonly members: readonly number[]
  readonly centre: [number, number, number]
  readonly radius: number
  readonly maxDegree: number
}

/** A sphere kept from an earlier layout: its centre, and the least radius that still holds its kept members. */
export interface FixedSphere {
  readonly centre: [number, number, number]
  readonly radius: number
}

/**
 * Places cluster spheres. Fixed ones keep their centre (their radius grows to hold their members if needed). The
 * rest, largest first, go along golden-spiral directions: the first at the origin when nothing is fixed, each
 * pushed out until it keeps a gap of half a link distance from every sphere already placed.
 * @param clusters - member indexes by cluster id
 * @param degrees - each node's degree, by index
 * @param linkDistance - the layout's scale
 * @param fixed - spheres to keep, by cluster id
 * @returns one sphere per cluster, the fixed ones first
 */
export function placeClusters(
  clusters: ReadonlyMap<number, number[]>,
  degrees: Float64Array,
  linkDistance: number,
  fixed: ReadonlyMap<number, FixedSphere> = new Map(),
): ClusterSphere[] {
  const order = [...clusters.entries()].sort((a, b) => b[1].length - a[1].length || a[0] - b[0])
  const placed: ClusterSphere[] = []
  const gap = linkDistance / 2
  const maxDegreeOf = (members: readonly number[]): number =>
    members.reduce((most, m) => Math.max(most, degrees[m] ?? 0), 0)
  const radiusOf = (members: readonly number[]): number => linkDistance * (0.3 + 0.8 * Math.cbrt(members.length))
  for (const [id, members] of order) {
    const kept = fixed.get(id)
    if (kept === undefined) continue
    placed.push({
      id,
      members,
      centre: kept.centre,
      radius: Math.max(kept.radius, radiusOf(members)),
      maxDegree: maxDegreeOf(members),
    })
  }
  let index = 0
  for (const [id, members] of order) {
    if (fixed.has(id)) continue
    const radius = radiusOf(members)
    let centre: [number, number, number] = [0, 0, 0]
    if (placed.length > 0) {
      const [dx, dy, dz] = spiralDirection(index + fixed.size)
      const first = placed[0]
      let distance = (first?.radius ?? 0) + radius + gap
      for (;;) {
        centre = [dx * distance, dy * distance, dz * distance]
        const clear = placed.every((other) => {
          const ex = centre[0] - other.centre[0]
          const ey = centre[1] - other.centre[1]
          const ez = centre[2] - other.centre[2]
          return Math.sqrt(ex * ex + ey * ey + ez * ez) >= other.radius + radius + gap
        })
        if (clear) break
        distance += gap
      }
    }
    index += 1
    placed.push({ id, members, centre, radius, maxDegree: maxDegreeOf(members) })
  }
  return placed
}
