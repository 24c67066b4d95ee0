/**
 * How the nebula fits its canvas: the layout turned and stretched to the canvas's shape, the camera placed so every
 * star fits inside a margin, zoom limits that follow that framing, and the orbit target kept near the graph.
 * Functions over a camera and its controls; no renderer and no DOM.
 */
import { MathUtils, Vector3, type PerspectiveCamera } from 'three'
import type { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'
import type { GraphPayload } from '../../src/graph-types.ts'
import type { ForceLayout, Positions, Vec3 } from './layout.ts'
import type { NebulaScene } from './scene.ts'

/** The share of the frame left free around the drawn graph on each side when it is framed. */
const FRAME_MARGIN = 0.06
/** The layout is stretched across by the canvas's aspect, up to this, so a wide frame is used across too. */
const MAX_STRETCH = 1.9
/** Zoom limits, as multiples of the framing distance: close enough to read a cluster, never so far it is lost. */
const ZOOM_IN = 0.08
const ZOOM_OUT = 2.5

/** The layout's extent across and up, before turning. */
export interface Extent {
  readonly across: number
  readonly up: number
}

/** How the layout lies on the canvas: turned a quarter about the view axis or not, and stretched across. */
export interface Orientation {
  /** True when its longer side is turned to lie across. */
  readonly turned: boolean
  /** Across stretch (the canvas aspect, clamped to [1, MAX_STRETCH]). */
  readonly stretch: number
}

/** The framed graph: its centre and bounding radius in world space, and the camera distance that frames it. */
export interface Framed {
  readonly centre: Vector3
  readonly radius: number
  readonly distance: number
}

/**
 * Measures a layout's extent from its cluster spheres (they hold every node).
 * @param layout - the layout
 * @param payload - the drawn graph, for its cluster ids
 * @returns the width and height of the spheres' box, at least 1 each
 */
export function measureExtent(layout: ForceLayout, payload: GraphPayload): Extent {
  let left = Infinity
  let right = -Infinity
  let bottom = Infinity
  let top = -Infinity
  for (const cluster of new Set(payload.nodes.map((node) => node.cluster))) {
    const sphere = layout.clusterSphere(cluster)
    if (sphere === undefined) continue
    left = Math.min(left, sphere.centre.x - sphere.radius)
    right = Math.max(right, sphere.centre.x + sphere.radius)
    bottom = Math.min(bottom, sphere.centre.y - sphere.radius)
    top = Math.max(top, sphere.centre.y + sphere.radius)
  }
  return Number.isFinite(left)
    ? { across: Math.max(1, right - left), up: Math.max(1, top - bottom) }
    : { across: 1, up: 1 }
}

/**
 * Chooses the turn and the stretch for the canvas's aspect.
 * @param extent - the layout's extent
 * @param aspect - the canvas's width over height
 * @returns the orientation that puts the longer side across and fills the frame both ways
 */
export function orientLayout(extent: Extent, aspect: number): Orientation {
  const turned = extent.up > extent.across === aspect >= 1
  const across = turned ? extent.up : extent.across
  const up = turned ? extent.across : extent.up
  return { turned, stretch: Math.min(MAX_STRETCH, Math.max(1, (aspect * up) / across)) }
}

/**
 * The layout's positions in world space: turned, then stretched across.
 * @param positions - layout positions
 * @param orientation - how the layout lies
 * @returns a fresh map of world positions
 */
export function worldPositions(positions: Positions, orientation: Orientation): Map<string, Vec3> {
  const out = new Map<string, Vec3>()
  for (const [id, at] of positions) {
    const x = orientation.turned ? at.y : at.x
    const y = orientation.turned ? -at.x : at.y
    out.set(id, { x: x * orientation.stretch, y, z: at.z })
  }
  return out
}

/**
 * Frames the drawn graph: the orbit target at the centre of its bounding box, and the camera, along its current
 * direction, at the distance where every star (with its radius) fits the frame inside FRAME_MARGIN. Zoom limits
 * follow that distance.
 * @param camera - moved to frame the graph
 * @param controls - its target moved, its zoom limits set
 * @param scene - the drawn stars
 * @param farthest - the largest zoom-out distance allowed regardless of framing
 * @returns what was framed
 */
export function frameGraph(
  camera: PerspectiveCamera,
  controls: OrbitControls,
  scene: NebulaScene,
  farthest: number,
): Framed {
  const min = new Vector3(Infinity, Infinity, Infinity)
  const max = new Vector3(-Infinity, -Infinity, -Infinity)
  const points: { at: Vector3; radius: number }[] = []
  scene.forEachNode((_, position, radius) => {
    const at = new Vector3(position.x, position.y, position.z)
    min.min(at)
    max.max(at)
    points.push({ at, radius })
  })
  const centre = points.length === 0 ? new Vector3() : min.clone().add(max).multiplyScalar(0.5)
  const direction = camera.position.clone().sub(controls.target)
  if (direction.lengthSq() < 1e-9) direction.set(0, 0.25, 1)
  direction.normalize()
  // The camera's axes for that direction (up stays world up, as OrbitControls keeps it).
  const right = new Vector3().crossVectors(camera.up, direction).normalize()
  const up = new Vector3().crossVectors(direction, right).normalize()
  const tanY = Math.tan(MathUtils.degToRad(camera.fov / 2)) * (1 - 2 * FRAME_MARGIN)
  const tanX = tanY * camera.aspect
  let distance = 10
  let radius = 1
  const offset = new Vector3()
  // Three passes: fit the distance, then move the centre to the middle of what the camera sees (perspective makes the
  // near side loom larger, so the box's middle is not the picture's), and fit again.
  for (let pass = 0; pass < 3; pass += 1) {
    distance = 10
    radius = 1
    for (const { at, radius: size } of points) {
      offset.copy(at).sub(centre)
      radius = Math.max(radius, offset.length() + size)
      const toward = offset.dot(direction)
      const across = offset.dot(right)
      const upward = offset.dot(up)
      distance = Math.max(
        distance,
        toward + (Math.abs(across) + size) / tanX,
        toward + (Math.abs(upward) + size) / tanY,
        toward + size * 3,
      )
    }
    if (pass === 2 || points.length === 0) break
    // Where the extremes land on the picture plane at that distance, as fractions of the distance.
    let left = Infinity
    let rightMost = -Infinity
    let bottom = Infinity
    let top = -Infinity
    for (const { at, radius: size } of points) {
      offset.copy(at).sub(centre)
      const depth = Math.max(1e-6, distance - offset.dot(direction))
      const x = offset.dot(right)
      const y = offset.dot(up)
      left = Math.min(left, (x - size) / depth)
      rightMost = Math.max(rightMost, (x + size) / depth)
      bottom = Math.min(bottom, (y - size) / depth)
      top = Math.max(top, (y + size) / depth)
    }
    centre
      .addScaledVector(right, ((left + rightMost) / 2) * distance)
      .addScaledVector(up, ((bottom + top) / 2) * distance)
  }
  controls.target.copy(centre)
  camera.position.copy(centre).addScaledVector(direction, distance)
  camera.lookAt(centre)
  controls.minDistance = distance * ZOOM_IN
  controls.maxDistance = Math.min(farthest, distance * ZOOM_OUT)
  controls.update()
  return { centre, radius, distance }
}

/**
 * Panning and zooming to the cursor move the target; this keeps it inside the framed graph's bounding sphere.
 * @param camera - moved with the target
 * @param controls - its target pulled back when outside
 * @param framed - the framed graph
 */
export function keepTargetNear(camera: PerspectiveCamera, controls: OrbitControls, framed: Framed): void {
  const offset = controls.target.clone().sub(framed.centre)
  const excess = offset.length() - framed.radius
  if (excess <= 0) return
  offset.setLength(excess)
  controls.target.sub(offset)
  camera.position.sub(offset)
}

/**
 * Converts a world length at the orbit target's depth to screen pixels.
 * @param length - a world length
 * @param camera - the camera
 * @param target - the orbit target
 * @param height - the canvas height in CSS pixels
 * @returns the length in pixels
 */
export function worldToPixels(length: number, camera: PerspectiveCamera, target: Vector3, height: number): number {
  const depth = camera.position.distanceTo(target)
  return (length * Math.max(1, height)) / Math.max(1e-6, 2 * depth * Math.tan(MathUtils.degToRad(camera.fov / 2)))
}
