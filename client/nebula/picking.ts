/** What is under the pointer in the nebula: the nearest star within a few pixels of the pointer's ray, else an edge. */
import { MathUtils, Vector2, Vector3, type PerspectiveCamera, type Raycaster } from 'three'
import type { GraphEdge, GraphNode } from '../../src/graph-types.ts'
import type { NebulaScene } from './scene.ts'

/** Pixels around a star or an edge that still pick it. */
const PICK_SLOP_PX = 6

/** What a pick found: a star, an edge, or nothing. */
export interface Picked {
  readonly node?: GraphNode
  readonly edge?: GraphEdge
}

/**
 * The nearest star within a few pixels of the ray through the pointer, else the first edge within a few pixels.
 * @param canvas - the drawn canvas, for its screen box
 * @param camera - the camera drawing it
 * @param target - the orbit target, for the edge threshold's depth
 * @param raycaster - reused between picks
 * @param scene - the drawn scene
 * @param clientX - pointer x in client pixels
 * @param clientY - pointer y in client pixels
 * @returns the star or edge picked, or neither
 */
export function pickAt(
  canvas: HTMLCanvasElement,
  camera: PerspectiveCamera,
  target: Vector3,
  raycaster: Raycaster,
  scene: NebulaScene,
  clientX: number,
  clientY: number,
): Picked {
  const box = canvas.getBoundingClientRect()
  if (box.width < 1 || box.height < 1) return {}
  const pointer = new Vector2(((clientX - box.left) / box.width) * 2 - 1, -((clientY - box.top) / box.height) * 2 + 1)
  raycaster.setFromCamera(pointer, camera)
  const ray = raycaster.ray
  const perPixel = (2 * Math.tan(MathUtils.degToRad(camera.fov / 2))) / box.height
  const offset = new Vector3()
  let best: { node: GraphNode; depth: number } | undefined
  scene.forEachNode((node, position, radius, state) => {
    const depth = offset.set(position.x, position.y, position.z).sub(ray.origin).dot(ray.direction)
    if (depth <= 0) return
    const reach = radius * (state === 'focus' ? 1.35 : 1) + PICK_SLOP_PX * perPixel * depth
    if (ray.distanceSqToPoint(offset.set(position.x, position.y, position.z)) > reach * reach) return
    if (best === undefined || depth < best.depth) best = { node, depth }
  })
  if (best !== undefined) return { node: best.node }
  raycaster.params.Line = { threshold: PICK_SLOP_PX * perPixel * camera.position.distanceTo(target) }
  const hit = raycaster.intersectObjects(scene.edgeLines(), false)[0]
  const edge = hit === undefined ? undefined : scene.edgeOf(hit.object)
  return edge === undefined ? {} : { edge }
}
