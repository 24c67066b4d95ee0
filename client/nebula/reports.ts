/**
 * What the nebula writes on its canvas for tools and tests: the drawn graph's screen box (data-frame), every star's
 * place on screen (data-stars), whether the layout still runs (data-layout) and the distinct cluster colours its stars use (data-clusters).
 */
import { Vector3, type Camera } from 'three'
import type { GraphPayload } from '../../src/graph-types.ts'
import type { NebulaScene } from './scene.ts'

/**
 * Writes the drawn graph's screen box (CSS pixels in the canvas: left, top, right, bottom) to data-frame, empty
 * when nothing is drawn, and each star's screen point as JSON `{ id: [x, y] }` (tenths of a pixel) to data-stars.
 * @param canvas - the canvas written to
 * @param scene - the drawn stars
 * @param camera - the camera drawing them
 * @param running - whether the layout still moves the stars
 */
export function reportFrame(canvas: HTMLCanvasElement, scene: NebulaScene, camera: Camera, running: boolean): void {
  canvas.dataset['layout'] = running ? 'running' : 'stopped'
  const width = canvas.clientWidth
  const height = canvas.clientHeight
  let left = Infinity
  let top = Infinity
  let right = -Infinity
  let bottom = -Infinity
  const point = new Vector3()
  const stars: Record<string, [number, number]> = {}
  scene.forEachNode((node, position) => {
    point.set(position.x, position.y, position.z).project(camera)
    const x = ((point.x + 1) / 2) * width
    const y = ((1 - point.y) / 2) * height
    left = Math.min(left, x)
    right = Math.max(right, x)
    top = Math.min(top, y)
    bottom = Math.max(bottom, y)
    stars[node.id] = [Math.round(x * 10) / 10, Math.round(y * 10) / 10]
  })
  canvas.dataset['stars'] = JSON.stringify(stars)
  canvas.dataset['frame'] = Number.isFinite(left) ? [left, top, right, bottom].map((n) => Math.round(n)).join(',') : ''
}

/**
 * Writes the distinct cluster colours the drawn stars use to data-clusters.
 * @param canvas - the canvas written to
 * @param payload - the drawn graph
 * @param colours - the palette's cluster colours
 */
export function reportClusters(canvas: HTMLCanvasElement, payload: GraphPayload, colours: readonly string[]): void {
  const used = new Set(
    payload.nodes.map((node) => colours[((node.cluster % colours.length) + colours.length) % colours.length] ?? ''),
  )
  canvas.dataset['clusters'] = [...used].join(' ')
}
