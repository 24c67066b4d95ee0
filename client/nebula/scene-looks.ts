/**
 * How the nebula looks: its palette, the node size rule, the edge kinds and the three.js materials, geometries and
 * textures a scene draws with. Pure constructors and painters; the scene decides what to cache and when to dispose.
 */
import {
  AdditiveBlending,
  BufferGeometry,
  DataTexture,
  Float32BufferAttribute,
  LineBasicMaterial,
  LineDashedMaterial,
  LinearFilter,
  MeshBasicMaterial,
  NormalBlending,
  Points,
  PointsMaterial,
  RGBAFormat,
  SphereGeometry,
  SpriteMaterial,
} from 'three'
import type { GraphEdge, GraphNode } from '../../src/graph-types.ts'
import { hashString, seededRandom } from './seeds.ts'

/** Colours of the scene, as CSS colour strings three.js parses (`#rrggbb`, `rgb(…)`, `hsl(…)`). */
export interface NebulaPalette {
  readonly background: string
  /** Confirmed and scheduled edges. */
  readonly edge: string
  readonly star: string
  /** Contested edges. */
  readonly contested: string
  /** Cluster colours; cluster `c` uses entry `c % clusters.length`. Must not be empty. */
  readonly clusters: readonly string[]
}

/** How an edge is drawn: contested wins over scheduled. */
export type EdgeKind = 'confirmed' | 'contested' | 'scheduled'
/** A node's part in the current highlight. */
export type NodeState = 'normal' | 'focus' | 'neighbour' | 'dimmed'
/** An edge's part in the current highlight. */
export type EdgeState = 'normal' | 'focus' | 'dimmed'

/** The materials one cluster colour needs: the core and glow, each plain and dimmed. */
export interface NodeLook {
  readonly core: MeshBasicMaterial
  readonly coreDim: MeshBasicMaterial
  readonly glow: SpriteMaterial
  readonly glowDim: SpriteMaterial
}

/** An edge line's material: dashed for contested edges. */
export type EdgeMaterial = LineBasicMaterial | LineDashedMaterial
/** One edge kind's material per highlight state. */
export type EdgeLook = Readonly<Record<EdgeState, EdgeMaterial>>

/** Edge opacity by kind and highlight state. */
const EDGE_OPACITY: Readonly<Record<EdgeKind, Readonly<Record<EdgeState, number>>>> = {
  confirmed: { normal: 0.35, focus: 0.95, dimmed: 0.05 },
  contested: { normal: 0.85, focus: 1, dimmed: 0.15 },
  scheduled: { normal: 0.12, focus: 0.45, dimmed: 0.03 },
}
/** A glow sprite's size as a multiple of its core's radius. */
export const GLOW_SCALE = 5
/** How much the focused node grows. */
export const FOCUS_SCALE = 1.35

/**
 * The world radius of a node's core: grows with the square root of its degree and fact count, values a little
 * smaller than entities, rounded to half units so nodes of similar weight share one geometry.
 * @param node - the node
 * @returns a radius between 1.5 and 9
 */
export function nodeRadius(node: GraphNode): number {
  const raw = 1.5 + 1.1 * Math.sqrt(Math.max(0, node.degree)) + 0.4 * Math.sqrt(Math.max(0, node.factCount))
  const scaled = node.kind === 'value' ? raw * 0.8 : raw
  return Math.round(Math.min(9, Math.max(1.5, scaled)) * 2) / 2
}

/**
 * @param edge - the edge
 * @returns how it is drawn: contested before scheduled before confirmed
 */
export function edgeKind(edge: GraphEdge): EdgeKind {
  if (edge.contested) return 'contested'
  return edge.scheduled ? 'scheduled' : 'confirmed'
}

/** A white radial falloff, tinted per node by its sprite material's colour. */
export function createGlowTexture(size = 64): DataTexture {
  const data = new Uint8Array(size * size * 4)
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x + 0.5 - size / 2, y + 0.5 - size / 2) / (size / 2)
      const a = Math.max(0, 1 - d) ** 1.6
      data.set([255, 255, 255, Math.round(a * 255)], (y * size + x) * 4)
    }
  }
  const texture = new DataTexture(data, size, size, RGBAFormat)
  texture.magFilter = LinearFilter
  texture.minFilter = LinearFilter
  texture.generateMipmaps = false
  texture.needsUpdate = true
  return texture
}

/** A seeded shell of background stars, the same on every load. */
export function createStars(
  count: number,
  radius: number,
  palette: NebulaPalette,
): Points<BufferGeometry, PointsMaterial> {
  const random = seededRandom(hashString('nebula:stars'))
  const coords = new Float32Array(count * 3)
  for (let i = 0; i < count; i++) {
    const u = random() * 2 - 1
    const phi = random() * Math.PI * 2
    const r = radius * (1 + random() * 0.5)
    const s = Math.sqrt(1 - u * u)
    coords.set([r * s * Math.cos(phi), r * s * Math.sin(phi), r * u], i * 3)
  }
  const geometry = new BufferGeometry()
  geometry.setAttribute('position', new Float32BufferAttribute(coords, 3))
  const material = new PointsMaterial({
    color: palette.star,
    size: 1.6,
    sizeAttenuation: false,
    transparent: true,
    depthWrite: false,
  })
  const points = new Points(geometry, material)
  points.name = 'stars'
  return points
}

/**
 * @param radius - a core radius from nodeRadius
 * @returns a sphere with more segments for bigger nodes
 */
export function createSphere(radius: number): SphereGeometry {
  const segments = Math.min(20, Math.round(8 + radius * 1.5))
  return new SphereGeometry(radius, segments, Math.max(6, Math.round(segments * 0.75)))
}

/**
 * @param glowTexture - the shared glow falloff
 * @returns unpainted node materials
 */
export function createNodeLook(glowTexture: DataTexture): NodeLook {
  return {
    core: new MeshBasicMaterial(),
    coreDim: new MeshBasicMaterial({ transparent: true, depthWrite: false }),
    glow: new SpriteMaterial({ map: glowTexture, transparent: true, depthWrite: false }),
    glowDim: new SpriteMaterial({ map: glowTexture, transparent: true, depthWrite: false }),
  }
}

/**
 * Colours a node look with its cluster colour. Glows add light on a dark background and blend normally on a light
 * one, where additive light would vanish.
 * @param look - the materials to paint in place
 * @param palette - the colours
 * @param slot - the cluster colour index
 * @param dark - whether the background is dark
 */
export function paintNodeLook(look: NodeLook, palette: NebulaPalette, slot: number, dark: boolean): void {
  const colour = palette.clusters[slot % Math.max(1, palette.clusters.length)] ?? palette.edge
  for (const material of [look.core, look.coreDim, look.glow, look.glowDim]) material.color.set(colour)
  look.coreDim.opacity = 0.18
  for (const glow of [look.glow, look.glowDim]) {
    glow.blending = dark ? AdditiveBlending : NormalBlending
    glow.needsUpdate = true
  }
  look.glow.opacity = dark ? 0.9 : 0.4
  look.glowDim.opacity = dark ? 0.1 : 0.05
}

/**
 * @param kind - the edge kind
 * @returns unpainted materials, dashed for contested edges
 */
export function createEdgeLook(kind: EdgeKind): EdgeLook {
  const make = (): EdgeMaterial =>
    kind === 'contested'
      ? new LineDashedMaterial({ dashSize: 3, gapSize: 2, transparent: true, depthWrite: false })
      : new LineBasicMaterial({ transparent: true, depthWrite: false })
  return { normal: make(), focus: make(), dimmed: make() }
}

/**
 * Colours an edge look: the warning colour for contested edges, opacity by highlight state.
 * @param look - the materials to paint in place
 * @param palette - the colours
 * @param kind - the edge kind
 */
export function paintEdgeLook(look: EdgeLook, palette: NebulaPalette, kind: EdgeKind): void {
  const colour = kind === 'contested' ? palette.contested : palette.edge
  for (const state of ['normal', 'focus', 'dimmed'] as const) {
    look[state].color.set(colour)
    look[state].opacity = EDGE_OPACITY[kind][state]
  }
}
