/**
 * The nebula view: mounts a WebGL canvas and an HTML label overlay into a container, runs the force layout in
 * per-frame slices, then renders only on interaction, camera motion, data or theme changes. It picks nodes and
 * edges by ray for hover and click, reads its colours from the host's `--dsw-alias-*` tokens (and follows theme
 * changes), pauses when hidden or disconnected, and disposes every GPU object. Without WebGL it throws
 * NebulaUnavailableError so the page can draw its SVG tree instead.
 */
import { MathUtils, PerspectiveCamera, Raycaster, Vector2, Vector3, WebGLRenderer } from 'three'
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'
import type { GraphEdge, GraphNode, GraphPayload } from '../../src/graph-types.ts'
import { createForceLayout, type ForceLayout } from './layout.ts'
import { NebulaScene } from './scene.ts'
import { nodeRadius } from './scene-looks.ts'
import { LabelOverlay, styled, type WantedLabel } from './labels.ts'
import { readTheme, type NebulaTheme } from './theme.ts'

/** What the page hears from the view. */
export interface NebulaHandlers {
  /** The star under the pointer changed; null when the pointer left every star. */
  onHover(node: GraphNode | null): void
  /** A star was clicked or tapped. */
  onSelectNode(node: GraphNode): void
  /** An edge was clicked or tapped (check `contested` before calling it a fact). */
  onSelectEdge(edge: GraphEdge): void
}

/** What the page can do with a mounted view. */
export interface NebulaHandle {
  /** Shows a new payload: nodes that stay keep their place, the layout settles again. */
  update(payload: GraphPayload): void
  /** Re-reads the theme tokens; also runs by itself when the host's theme changes. */
  setTheme(): void
  /** Drops the clicked star's highlight (the page closed its panel). */
  clearSelection(): void
  /** Frames the drawn graph again (the page's fit control). */
  fit(): void
  /** Stops the frame loop until `resume()`. */
  pause(): void
  resume(): void
  /** Frees the renderer, every GPU object, observer and listener, and removes the canvas. Safe to call twice. */
  dispose(): void
}

/** Thrown by `mountNebula` when no WebGL 2 context can be created. */
export class NebulaUnavailableError extends Error {
  readonly code = 'webgl_unavailable'

  /** @param message - what failed; @param options - the underlying error as `cause` */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'NebulaUnavailableError'
  }
}

const FRAME_BUDGET_MS = 8
const STAR_RADIUS = 6000
const PICK_SLOP_PX = 6
const CLICK_SLOP_PX = 5
/** Camera motion per frame below which damping counts as finished and the loop idles. */
const SETTLED_PX = 0.05
/** The share of the frame left free around the drawn graph on each side when it is framed. */
const FRAME_MARGIN = 0.06
/** The layout is stretched across by the canvas's aspect, up to this, so a wide frame is used across too. */
const MAX_STRETCH = 1.9
/** Zoom limits, as multiples of the framing distance: close enough to read a cluster, never so far it is lost. */
const ZOOM_IN = 0.08
const ZOOM_OUT = 2.5
/** Rotation stops this far (radians) from the poles, so the graph never turns upside down. */
const POLE_GAP = 0.35

/**
 * Whether this browser can create the WebGL 2 context three.js needs. Creates and releases a throwaway context.
 * @returns false without a DOM, without WebGL 2, or when creation throws
 */
export function webglAvailable(): boolean {
  if (typeof document === 'undefined') return false
  try {
    const gl = document.createElement('canvas').getContext('webgl2')
    if (gl === null) return false
    gl.getExtension('WEBGL_lose_context')?.loseContext()
    return true
  } catch {
    // Creation refused by the browser or a blocklist: report no WebGL.
    return false
  }
}

class NebulaView implements NebulaHandle {
  readonly #container: HTMLElement
  readonly #handlers: NebulaHandlers
  readonly #root = styled('div', 'position:relative;width:100%;height:100%;overflow:hidden')
  readonly #canvas = styled('canvas', 'display:block;width:100%;height:100%;touch-action:none;outline-offset:-2px')
  readonly #overlay = styled('div', 'position:absolute;inset:0;pointer-events:none;overflow:hidden;'
    + 'font:12px/16px var(--dsw-font-family,system-ui,sans-serif)')
  readonly #legend = styled('div', 'position:absolute;left:12px;bottom:12px;display:grid;gap:2px;color:var(--nebula-text-2)')
  readonly #labels = new LabelOverlay(this.#overlay)
  readonly #renderer: WebGLRenderer
  readonly #camera = new PerspectiveCamera(50, 1, 0.5, STAR_RADIUS * 3)
  readonly #controls: OrbitControls
  readonly #scene: NebulaScene
  readonly #raycaster = new Raycaster()
  readonly #events = new AbortController()
  readonly #observers: { disconnect(): void }[] = []
  /** With reduced motion the layout settles unseen and the camera has no inertia. */
  readonly #reducedMotion = matchMedia('(prefers-reduced-motion: reduce)').matches
  #probe: CanvasRenderingContext2D | null | undefined
  #theme: NebulaTheme
  #layout: ForceLayout
  #ranked: GraphNode[] = []
  #hovered: GraphNode | null = null
  #hoveredEdge: GraphEdge | null = null
  #pinned: string | null = null
  #pressed: { x: number; y: number; id: number } | null = null
  /** Across stretch of the layout (the canvas aspect, clamped). */
  #stretch = 1
  /** True when the layout is turned a quarter about the view axis, so its longer side lies across. */
  #turned = false
  /** The layout's extent across and up (from its cluster spheres, fixed for a layout), before turning. */
  #extent = { across: 1, up: 1 }
  /** The framed graph: its centre and bounding radius in world space, and the camera distance that frames it. */
  #framed = { centre: new Vector3(), radius: 1, distance: 1 }
  /** True once the person moved the camera: the settling layout stops re-framing until the next read or resize. */
  #userMoved = false
  #moved = false
  #frame = 0
  #paused = false
  #visible = true
  #contextLost = false
  #disposed = false

  constructor(container: HTMLElement, payload: GraphPayload, handlers: NebulaHandlers) {
    this.#container = container
    this.#handlers = handlers
    try {
      this.#renderer = new WebGLRenderer({ canvas: this.#canvas, antialias: true })
    } catch (cause) {
      throw new NebulaUnavailableError('three.js could not create a WebGL 2 context', { cause })
    }
    this.#renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2))
    this.#theme = readTheme(container, () => this.#colourProbe())
    this.#scene = new NebulaScene({ palette: this.#theme.palette, starRadius: STAR_RADIUS })
    this.#layout = createForceLayout(payload)
    this.#canvas.tabIndex = 0
    this.#canvas.setAttribute('role', 'img')
    this.#root.append(this.#canvas, this.#overlay)
    this.#overlay.setAttribute('aria-hidden', 'true')
    this.#overlay.append(this.#legend)
    container.append(this.#root)
    this.#applyThemeToOverlay()

    this.#controls = new OrbitControls(this.#camera, this.#canvas)
    this.#controls.enableDamping = !this.#reducedMotion
    this.#controls.dampingFactor = 0.12
    this.#controls.minPolarAngle = POLE_GAP
    this.#controls.maxPolarAngle = Math.PI - POLE_GAP
    this.#controls.zoomToCursor = true
    this.#controls.listenToKeyEvents(this.#canvas)
    this.#controls.addEventListener('start', () => { this.#userMoved = true })
    this.#controls.addEventListener('change', () => {
      this.#keepTargetNear()
      this.#invalidate()
    })
    this.#show(payload)
    this.#listen()
    this.#resize(container.clientWidth, container.clientHeight)
  }

  update(payload: GraphPayload): void {
    if (this.#disposed) return
    const previous = this.#layout.positions()
    const known = payload.nodes.filter((node) => previous.has(node.id)).length
    const warm = known > 0 && known >= payload.nodes.length / 2
    this.#layout = createForceLayout(payload, warm ? { initial: previous, alpha: 0.3 } : {})
    this.#userMoved = false
    this.#show(payload)
  }

  setTheme(): void {
    if (this.#disposed) return
    const theme = readTheme(this.#container, () => this.#colourProbe())
    if (JSON.stringify(theme) === JSON.stringify(this.#theme)) return
    this.#theme = theme
    this.#scene.setPalette(this.#theme.palette)
    this.#applyThemeToOverlay()
    this.#invalidate()
  }

  fit(): void {
    if (this.#disposed) return
    this.#userMoved = false
    this.#frame3d()
    this.#invalidate()
  }

  clearSelection(): void {
    if (this.#disposed || this.#pinned === null) return
    this.#pinned = null
    this.#scene.highlight(this.#hovered?.id ?? null)
    this.#invalidate()
  }

  pause(): void {
    this.#paused = true
    this.#cancelFrame()
  }

  resume(): void {
    this.#paused = false
    this.#invalidate()
  }

  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    this.#cancelFrame()
    this.#events.abort()
    for (const observer of this.#observers) observer.disconnect()
    this.#controls.dispose()
    this.#scene.dispose()
    this.#renderer.dispose()
    this.#renderer.forceContextLoss()
    this.#labels.dispose()
    this.#root.remove()
  }

  /**
   * The layout's positions in world space: turned so its longer side lies across the canvas, then stretched across
   * until its shape matches the canvas's (at most MAX_STRETCH), so the frame is used both ways.
   */
  #worldPositions(): Map<string, { x: number; y: number; z: number }> {
    const out = new Map<string, { x: number; y: number; z: number }>()
    for (const [id, at] of this.#layout.positions()) {
      const x = this.#turned ? at.y : at.x
      const y = this.#turned ? -at.x : at.y
      out.set(id, { x: x * this.#stretch, y, z: at.z })
    }
    return out
  }

  /** Measures a new layout's extent from its cluster spheres (they hold every node). */
  #measureLayout(payload: GraphPayload): void {
    let left = Infinity
    let right = -Infinity
    let bottom = Infinity
    let top = -Infinity
    for (const cluster of new Set(payload.nodes.map((node) => node.cluster))) {
      const sphere = this.#layout.clusterSphere(cluster)
      if (sphere === undefined) continue
      left = Math.min(left, sphere.centre.x - sphere.radius)
      right = Math.max(right, sphere.centre.x + sphere.radius)
      bottom = Math.min(bottom, sphere.centre.y - sphere.radius)
      top = Math.max(top, sphere.centre.y + sphere.radius)
    }
    this.#extent = Number.isFinite(left) ? { across: Math.max(1, right - left), up: Math.max(1, top - bottom) } : { across: 1, up: 1 }
    this.#orient()
  }

  /** Chooses the turn and the stretch for the canvas's aspect. */
  #orient(): void {
    const aspect = this.#camera.aspect
    this.#turned = (this.#extent.up > this.#extent.across) === aspect >= 1
    const across = this.#turned ? this.#extent.up : this.#extent.across
    const up = this.#turned ? this.#extent.across : this.#extent.up
    this.#stretch = Math.min(MAX_STRETCH, Math.max(1, (aspect * up) / across))
  }

  #show(payload: GraphPayload): void {
    this.#measureLayout(payload)
    this.#scene.sync(payload, this.#worldPositions())
    this.#frame3d()
    this.#reportClusters(payload)
    this.#ranked = [...payload.nodes].sort((a, b) => b.degree - a.degree || b.factCount - a.factCount || (a.id < b.id ? -1 : 1))
    this.#labels.prune((key) => key.startsWith('n:') ? this.#scene.node(key.slice(2)) !== undefined : this.#scene.edge(key.slice(2)) !== undefined)
    if (this.#pinned !== null && this.#scene.node(this.#pinned) === undefined) this.#pinned = null
    if (this.#hoveredEdge !== null) this.#hoveredEdge = this.#scene.edge(this.#hoveredEdge.id) ?? null
    if (this.#hovered !== null && this.#scene.node(this.#hovered.id) === undefined) this.#setHover(null)
    this.#scene.highlight(this.#hovered?.id ?? this.#pinned)
    const contested = payload.edges.filter((edge) => edge.contested).length
    const scheduled = payload.edges.filter((edge) => edge.scheduled && !edge.contested).length
    const legend: HTMLElement[] = []
    if (contested > 0) legend.push(styled('span', 'color:var(--nebula-warn)', `┄ dashed: ${plural(contested, 'contested relation')}, not confirmed`))
    if (scheduled > 0) legend.push(styled('span', 'opacity:0.8', `faint: ${plural(scheduled, 'scheduled relation')}, not current yet`))
    this.#legend.replaceChildren(...legend)
    this.#canvas.setAttribute('aria-label', `Fact graph: ${payload.nodes.length} nodes and ${payload.edges.length} relations`
      + (contested > 0 ? `, ${contested} contested (dashed, not confirmed)` : ''))
    this.#invalidate()
  }

  #listen(): void {
    const signal = this.#events.signal
    const canvas = this.#canvas
    canvas.addEventListener('pointermove', (event) => this.#onPointerMove(event), { signal })
    canvas.addEventListener('pointerdown', (event) => {
      this.#pressed = { x: event.clientX, y: event.clientY, id: event.pointerId }
      this.#moved = false
    }, { signal })
    canvas.addEventListener('pointerup', (event) => this.#onPointerUp(event), { signal })
    canvas.addEventListener('pointerleave', () => {
      this.#hoveredEdge = null
      this.#setHover(null)
    }, { signal })
    canvas.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || this.#pinned === null) return
      this.#pinned = null
      this.#scene.highlight(this.#hovered?.id ?? null)
      this.#invalidate()
    }, { signal })
    canvas.addEventListener('webglcontextlost', () => {
      this.#contextLost = true
      this.#cancelFrame()
    }, { signal })
    canvas.addEventListener('webglcontextrestored', () => {
      this.#contextLost = false
      this.#invalidate()
    }, { signal })
    document.addEventListener('visibilitychange', () => this.#invalidate(), { signal })
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.setTheme(), { signal })

    const resize = new ResizeObserver((entries) => {
      const box = entries[entries.length - 1]?.contentRect
      if (box !== undefined) this.#resize(box.width, box.height)
    })
    resize.observe(this.#container)
    const visibility = new IntersectionObserver((entries) => {
      this.#visible = entries[entries.length - 1]?.isIntersecting ?? true
      if (this.#visible) this.#invalidate()
      else this.#cancelFrame()
    })
    visibility.observe(this.#container)
    const theme = new MutationObserver(() => this.setTheme())
    theme.observe(document.body, { attributes: true, attributeFilter: ['data-ds-dark-theme', 'style'] })
    this.#observers.push(resize, visibility, theme)
  }

  #running(): boolean {
    return !this.#disposed && !this.#paused && this.#visible && !this.#contextLost
      && document.visibilityState !== 'hidden' && this.#container.isConnected
  }

  #invalidate(): void {
    if (this.#frame === 0 && this.#running()) this.#frame = requestAnimationFrame(() => this.#draw())
  }

  #cancelFrame(): void {
    if (this.#frame !== 0) cancelAnimationFrame(this.#frame)
    this.#frame = 0
  }

  #draw(): void {
    this.#frame = 0
    if (!this.#running()) return
    let again = false
    if (this.#layout.stopped === null) {
      const until = performance.now() + FRAME_BUDGET_MS
      while (performance.now() < until && this.#layout.tick(1));
      this.#scene.setPositions(this.#worldPositions())
      // While the layout settles the camera keeps framing it, until the person takes the camera.
      if (!this.#userMoved) this.#frame3d()
      again = this.#layout.stopped === null
      if (again && this.#reducedMotion) {
        this.#invalidate()
        return
      }
    }
    const before = this.#camera.position.clone()
    if (this.#controls.update() && this.#pixels(before.distanceTo(this.#camera.position)) > SETTLED_PX) again = true
    this.#renderer.render(this.#scene.object, this.#camera)
    this.#placeLabels()
    this.#reportFrame()
    if (again) this.#invalidate()
  }

  #resize(width: number, height: number): void {
    if (width < 1 || height < 1) return
    this.#renderer.setSize(width, height, false)
    this.#camera.aspect = width / height
    this.#camera.updateProjectionMatrix()
    this.#orient()
    this.#scene.setPositions(this.#worldPositions())
    this.#userMoved = false
    this.#frame3d()
    this.#invalidate()
  }

  /**
   * Frames the drawn graph: the orbit target at the centre of its bounding box, and the camera, along its current
   * direction, at the distance where every star (with its radius) fits the frame inside FRAME_MARGIN. Zoom limits
   * follow that distance.
   */
  #frame3d(): void {
    const camera = this.#camera
    const controls = this.#controls
    const min = new Vector3(Infinity, Infinity, Infinity)
    const max = new Vector3(-Infinity, -Infinity, -Infinity)
    const points: { at: Vector3; radius: number }[] = []
    this.#scene.forEachNode((_, position, radius) => {
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
        distance = Math.max(distance, toward + (Math.abs(across) + size) / tanX, toward + (Math.abs(upward) + size) / tanY, toward + size * 3)
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
      centre.addScaledVector(right, ((left + rightMost) / 2) * distance).addScaledVector(up, ((bottom + top) / 2) * distance)
    }
    this.#framed = { centre, radius, distance }
    controls.target.copy(centre)
    camera.position.copy(centre).addScaledVector(direction, distance)
    camera.lookAt(centre)
    controls.minDistance = distance * ZOOM_IN
    controls.maxDistance = Math.min(STAR_RADIUS * 0.8, distance * ZOOM_OUT)
    controls.update()
  }

  /** Panning and zooming to the cursor move the target; it never leaves the framed graph's bounding sphere. */
  #keepTargetNear(): void {
    const { centre, radius } = this.#framed
    const offset = this.#controls.target.clone().sub(centre)
    const excess = offset.length() - radius
    if (excess <= 0) return
    offset.setLength(excess)
    this.#controls.target.sub(offset)
    this.#camera.position.sub(offset)
  }

  /**
   * Writes the drawn graph's screen box (CSS pixels in the canvas: left, top, right, bottom) to the canvas's
   * data-frame attribute, for tools and tests that check the framing.
   */
  #reportFrame(): void {
    const width = this.#canvas.clientWidth
    const height = this.#canvas.clientHeight
    let left = Infinity
    let top = Infinity
    let right = -Infinity
    let bottom = -Infinity
    const point = new Vector3()
    this.#scene.forEachNode((_, position) => {
      point.set(position.x, position.y, position.z).project(this.#camera)
      const x = ((point.x + 1) / 2) * width
      const y = ((1 - point.y) / 2) * height
      left = Math.min(left, x)
      right = Math.max(right, x)
      top = Math.min(top, y)
      bottom = Math.max(bottom, y)
    })
    this.#canvas.dataset['frame'] = Number.isFinite(left) ? [left, top, right, bottom].map((n) => Math.round(n)).join(',') : ''
  }

  /** Writes the distinct cluster colours the drawn stars use to the canvas's data-clusters attribute. */
  #reportClusters(payload: GraphPayload): void {
    const colours = this.#theme.palette.clusters
    const used = new Set(payload.nodes.map((node) => colours[((node.cluster % colours.length) + colours.length) % colours.length] ?? ''))
    this.#canvas.dataset['clusters'] = [...used].join(' ')
  }

  /** Converts a world length at the orbit target's depth to screen pixels. */
  #pixels(length: number): number {
    const depth = this.#camera.position.distanceTo(this.#controls.target)
    const height = Math.max(1, this.#canvas.clientHeight)
    return (length * height) / Math.max(1e-6, 2 * depth * Math.tan(MathUtils.degToRad(this.#camera.fov / 2)))
  }

  #colourProbe(): CanvasRenderingContext2D | null {
    if (this.#probe === undefined) {
      const canvas = document.createElement('canvas')
      canvas.width = canvas.height = 1
      this.#probe = canvas.getContext('2d', { willReadFrequently: true })
    }
    return this.#probe
  }

  #applyThemeToOverlay(): void {
    const style = this.#overlay.style
    style.setProperty('--nebula-text', this.#theme.text)
    style.setProperty('--nebula-text-2', this.#theme.textSecondary)
    style.setProperty('--nebula-warn', this.#theme.warnText)
    style.setProperty('--nebula-halo', this.#theme.palette.background)
  }

  #onPointerMove(event: PointerEvent): void {
    if (this.#pressed !== null && Math.hypot(event.clientX - this.#pressed.x, event.clientY - this.#pressed.y) > CLICK_SLOP_PX) this.#moved = true
    if (event.buttons !== 0) return
    const picked = this.#pick(event.clientX, event.clientY)
    const edge = picked.node === undefined ? picked.edge ?? null : null
    if (edge?.id !== this.#hoveredEdge?.id) {
      this.#hoveredEdge = edge
      this.#invalidate()
    }
    this.#setHover(picked.node ?? null)
    this.#canvas.style.cursor = picked.node !== undefined || edge !== null ? 'pointer' : ''
  }

  #onPointerUp(event: PointerEvent): void {
    const pressed = this.#pressed
    this.#pressed = null
    if (pressed === null || pressed.id !== event.pointerId || this.#moved) return
    const picked = this.#pick(event.clientX, event.clientY)
    this.#pinned = picked.node?.id ?? null
    this.#scene.highlight(this.#hovered?.id ?? this.#pinned)
    this.#invalidate()
    if (picked.node !== undefined) this.#handlers.onSelectNode(picked.node)
    else if (picked.edge !== undefined) this.#handlers.onSelectEdge(picked.edge)
  }

  #setHover(node: GraphNode | null): void {
    if (node?.id === this.#hovered?.id) return
    this.#hovered = node
    this.#scene.highlight(node?.id ?? this.#pinned)
    this.#invalidate()
    this.#handlers.onHover(node)
  }

  /** The nearest star within a few pixels of the ray through the pointer, else the first edge within a few pixels. */
  #pick(clientX: number, clientY: number): { node?: GraphNode; edge?: GraphEdge } {
    const box = this.#canvas.getBoundingClientRect()
    if (box.width < 1 || box.height < 1) return {}
    const pointer = new Vector2(((clientX - box.left) / box.width) * 2 - 1, -((clientY - box.top) / box.height) * 2 + 1)
    this.#raycaster.setFromCamera(pointer, this.#camera)
    const ray = this.#raycaster.ray
    const perPixel = (2 * Math.tan(MathUtils.degToRad(this.#camera.fov / 2))) / box.height
    const offset = new Vector3()
    let best: { node: GraphNode; depth: number } | undefined
    this.#scene.forEachNode((node, position, radius, state) => {
      const depth = offset.set(position.x, position.y, position.z).sub(ray.origin).dot(ray.direction)
      if (depth <= 0) return
      const reach = radius * (state === 'focus' ? 1.35 : 1) + PICK_SLOP_PX * perPixel * depth
      if (ray.distanceSqToPoint(offset.set(position.x, position.y, position.z)) > reach * reach) return
      if (best === undefined || depth < best.depth) best = { node, depth }
    })
    if (best !== undefined) return { node: best.node }
    this.#raycaster.params.Line = { threshold: PICK_SLOP_PX * perPixel * this.#camera.position.distanceTo(this.#controls.target) }
    const hit = this.#raycaster.intersectObjects(this.#scene.edgeLines(), false)[0]
    const edge = hit === undefined ? undefined : this.#scene.edgeOf(hit.object)
    return edge === undefined ? {} : { edge }
  }

  /**
   * Places the labels that fit without overlap, most important first: the hovered star and edge, the selected star
   * and its neighbours (and its contested edges), every hub, and, once zoomed in past the framing, the other stars
   * by degree.
   */
  #placeLabels(): void {
    const width = this.#overlay.clientWidth
    const height = this.#overlay.clientHeight
    const focus = this.#scene.focused
    const wanted: WantedLabel[] = []
    const perPixel = (2 * Math.tan(MathUtils.degToRad(this.#camera.fov / 2))) / Math.max(1, height)
    const nodeLabel = (node: GraphNode, strong: boolean): void => {
      const at = this.#scene.positionOf(node.id)
      if (at === undefined) return
      const point = new Vector3(at.x, at.y, at.z)
      const lift = 3 + nodeRadiusPx(point, this.#camera.position, node, perPixel)
      const text = node.id === this.#hovered?.id ? `${node.label} · ${plural(node.factCount, 'fact')}` : node.label
      wanted.push({ key: `n:${node.id}`, text, at: point, lift, strong, warn: false, dim: this.#scene.nodeState(node.id) === 'dimmed' })
    }
    const edgeLabel = (edge: GraphEdge, text: string): void => {
      const a = this.#scene.positionOf(edge.source)
      const b = this.#scene.positionOf(edge.target)
      if (a === undefined || b === undefined) return
      const at = new Vector3((a.x + b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2)
      wanted.push({ key: `e:${edge.id}`, text, at, lift: 0, strong: true, warn: edge.contested, dim: false })
    }
    if (this.#hovered !== null) nodeLabel(this.#hovered, true)
    if (this.#hoveredEdge !== null) edgeLabel(this.#hoveredEdge, describeEdge(this.#hoveredEdge))
    if (focus !== null) {
      const near = this.#scene.neighbours(focus)
      for (const node of this.#ranked) if (node.id === focus || near.has(node.id)) nodeLabel(node, node.id === focus)
      this.#scene.forEachEdge((edge, state) => {
        if (state === 'focus' && edge.contested && edge.id !== this.#hoveredEdge?.id) edgeLabel(edge, 'contested')
      })
    }
    for (const node of this.#ranked) if (node.hub) nodeLabel(node, true)
    // Contested relations are named wherever there is room, so they are seen without hovering.
    this.#scene.forEachEdge((edge) => { if (edge.contested) edgeLabel(edge, `${edge.label} · contested`) })
    const zoomedIn = this.#camera.position.distanceTo(this.#controls.target) < this.#framed.distance * 0.7
    if (zoomedIn) {
      const budget = Math.max(12, Math.min(80, Math.round((width * height) / 12000)))
      for (const node of this.#ranked.slice(0, budget)) nodeLabel(node, false)
    }
    this.#labels.place(wanted, this.#camera, width, height)
  }
}

function nodeRadiusPx(at: Vector3, eye: Vector3, node: GraphNode, perPixel: number): number {
  return nodeRadius(node) / Math.max(1e-6, perPixel * at.distanceTo(eye))
}

/** "1 contested relation", "8 contested relations". */
function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

function describeEdge(edge: GraphEdge): string {
  const status = edge.contested ? 'contested, not confirmed' : edge.scheduled ? 'scheduled' : 'current'
  return `${edge.label} · ${status} · ${plural(edge.factIds.length, 'fact')}`
}

/**
 * Mounts the nebula into `container`, which must have a size (the view fills it and follows its resizes).
 * @param container - an element with a definite width and height; the view appends one child and removes it on dispose
 * @param payload - the graph to draw
 * @param handlers - hover and selection callbacks
 * @returns the handle to update, re-theme, pause, resume and dispose the view
 * @throws NebulaUnavailableError when WebGL 2 is unavailable
 */
export function mountNebula(container: HTMLElement, payload: GraphPayload, handlers: NebulaHandlers): NebulaHandle {
  if (!webglAvailable()) throw new NebulaUnavailableError('WebGL 2 is not available in this browser')
  return new NebulaView(container, payload, handlers)
}
