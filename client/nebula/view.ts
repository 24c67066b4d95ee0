/**
 * The nebula view: mounts a WebGL canvas and an HTML label overlay into a container, runs the force layout in
 * per-frame slices, then renders only on interaction, camera motion, data or theme changes. It owns the renderer,
 * camera, controls and frame loop; framing, picking, pointer state, label choice and captions live beside it. It
 * reads its colours from the host's `--dsw-alias-*` tokens (and follows theme changes), pauses when hidden or
 * disconnected, and disposes every GPU object. Without WebGL it throws NebulaUnavailableError so the page can draw
 * its SVG tree instead.
 */
import { MathUtils, PerspectiveCamera, Raycaster, Vector3, WebGLRenderer } from 'three'
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'
import type { GraphNode, GraphPayload } from '../../src/graph-types.ts'
import {
  frameGraph,
  keepTargetNear,
  measureExtent,
  orientLayout,
  worldPositions,
  worldToPixels,
  type Extent,
  type Framed,
  type Orientation,
} from './framing.ts'
import type { NebulaHandle, NebulaHandlers, NebulaMemory } from './handle.ts'
import {
  assignClusterColours,
  clusterKeys,
  largestEntities,
  unlinkedGroups,
  type GroupLabel,
} from './cluster-identity.ts'
import { nodeRadius } from './scene-looks.ts'
import { planLabels } from './label-plan.ts'
import { LabelOverlay, styled } from './labels.ts'
import { createForceLayout, type ForceLayout, type LayoutMemory, type Vec3 } from './layout.ts'
import { pickAt, type Picked } from './picking.ts'
import { NebulaPointer } from './pointer.ts'
import { reportClusters, reportFrame } from './reports.ts'
import { NebulaScene } from './scene.ts'
import { readTheme, type NebulaTheme } from './theme.ts'
import { NebulaUnavailableError, webglAvailable } from './webgl.ts'
import { captionsOf } from './words.ts'

export type { NebulaHandle, NebulaHandlers } from './handle.ts'
export { NebulaUnavailableError, webglAvailable } from './webgl.ts'

const FRAME_BUDGET_MS = 8
const STAR_RADIUS = 6000
/** Camera motion per frame below which damping counts as finished and the loop idles. */
const SETTLED_PX = 0.05
/** Rotation stops this far (radians) from the poles, so the graph never turns upside down. */
const POLE_GAP = 0.35
/** A flight to a found star: how long it takes, and how close it ends, as a share of the framing distance. */
const FLIGHT_MS = 600
const FLIGHT_DISTANCE = 0.35

/** The camera's orbit target and place at the start and end of a flight. */
interface Flight {
  readonly fromTarget: Vector3
  readonly fromPosition: Vector3
  readonly toTarget: Vector3
  readonly toPosition: Vector3
  readonly start: number
}

class NebulaView implements NebulaHandle {
  readonly #container: HTMLElement
  readonly #root = styled('div', 'position:relative;width:100%;height:100%;overflow:hidden')
  readonly #canvas = styled('canvas', 'display:block;width:100%;height:100%;touch-action:none;outline-offset:-2px')
  readonly #overlay = styled(
    'div',
    'position:absolute;inset:0;pointer-events:none;overflow:hidden;' +
      'font:12px/16px var(--dsw-font-family,system-ui,sans-serif)',
  )
  readonly #legend = styled(
    'div',
    'position:absolute;left:12px;bottom:12px;display:grid;gap:2px;color:var(--nebula-text-2)',
  )
  readonly #labels = new LabelOverlay(this.#overlay)
  readonly #renderer: WebGLRenderer
  readonly #camera = new PerspectiveCamera(50, 1, 0.5, STAR_RADIUS * 3)
  readonly #controls: OrbitControls
  readonly #scene: NebulaScene
  readonly #raycaster = new Raycaster()
  readonly #events = new AbortController()
  readonly #pointer: NebulaPointer
  readonly #observers: { disconnect(): void }[] = []
  /** With reduced motion the layout settles unseen and the camera has no inertia. */
  readonly #reducedMotion = matchMedia('(prefers-reduced-motion: reduce)').matches
  #probe: CanvasRenderingContext2D | null | undefined
  #theme: NebulaTheme
  #layout: ForceLayout
  #ranked: GraphNode[] = []
  /** Each cluster's largest entity (most facts), labelled whatever the zoom. */
  #largest: GraphNode[] = []
  /** The unlinked group's label, named as a group. */
  #groups: GroupLabel[] = []
  /** Colour slot by cluster identity, kept while the cluster exists. */
  #colours: ReadonlyMap<string, number>
  /** How the layout lies on the canvas. */
  #orientation: Orientation = { turned: false, stretch: 1 }
  /** The layout's extent (from its cluster spheres, fixed for a layout), before turning. */
  #extent: Extent = { across: 1, up: 1 }
  #framed: Framed = { centre: new Vector3(), radius: 1, distance: 1 }
  /** True once the person moved the camera: the settling layout stops re-framing until the next read or resize. */
  #userMoved = false
  /** A flight to a found star, while it lasts. */
  #flight: Flight | undefined
  #frame = 0
  #paused = false
  #visible = true
  #contextLost = false
  #disposed = false

  constructor(
    container: HTMLElement,
    payload: GraphPayload,
    handlers: NebulaHandlers,
    memory: NebulaMemory | undefined,
  ) {
    this.#container = container
    this.#colours = memory?.colours ?? new Map()
    try {
      this.#renderer = new WebGLRenderer({ canvas: this.#canvas, antialias: true })
    } catch (cause) {
      throw new NebulaUnavailableError('three.js could not create a WebGL 2 context', { cause })
    }
    this.#renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2))
    this.#theme = readTheme(container, () => this.#colourProbe())
    this.#scene = new NebulaScene({ palette: this.#theme.palette, starRadius: STAR_RADIUS })
    this.#layout = layoutFor(payload, memory?.layout)
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
    this.#controls.addEventListener('start', () => {
      this.#userMoved = true
      this.#flight = undefined
    })
    this.#controls.addEventListener('change', () => {
      keepTargetNear(this.#camera, this.#controls, this.#framed)
      this.#invalidate()
    })
    this.#pointer = new NebulaPointer(
      this.#canvas,
      {
        pick: (x, y) => this.#pick(x, y),
        highlight: (id) => {
          this.#scene.highlight(id)
          this.#invalidate()
        },
        invalidate: () => this.#invalidate(),
        screenOf: (id) => {
          const at = this.#scene.positionOf(id) ?? { x: 0, y: 0, z: 0 }
          const point = new Vector3(at.x, at.y, at.z).project(this.#camera)
          const width = this.#canvas.clientWidth
          return { x: ((point.x + 1) / 2) * width, y: ((1 - point.y) / 2) * this.#canvas.clientHeight, width }
        },
      },
      handlers,
      this.#events.signal,
    )
    this.#show(payload)
    this.#listen()
    this.#resize(container.clientWidth, container.clientHeight)
  }

  update(payload: GraphPayload): void {
    if (this.#disposed) return
    this.#layout = layoutFor(payload, this.#layout.memory())
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

  flyTo(id: string): { readonly x: number; readonly y: number; readonly width: number } | undefined {
    if (this.#disposed) return undefined
    const at = this.#scene.positionOf(id)
    if (at === undefined) return undefined
    const toTarget = new Vector3(at.x, at.y, at.z)
    const direction = this.#camera.position.clone().sub(this.#controls.target).normalize()
    const distance = Math.max(
      this.#controls.minDistance,
      Math.min(this.#camera.position.distanceTo(this.#controls.target), this.#framed.distance * FLIGHT_DISTANCE),
    )
    const toPosition = toTarget.clone().addScaledVector(direction, distance)
    // The person asked for this place: the settling layout stops re-framing it.
    this.#userMoved = true
    this.#pointer.pin(id)
    if (this.#reducedMotion) {
      this.#flight = undefined
      this.#controls.target.copy(toTarget)
      this.#camera.position.copy(toPosition)
    } else {
      this.#flight = {
        fromTarget: this.#controls.target.clone(),
        fromPosition: this.#camera.position.clone(),
        toTarget,
        toPosition,
        start: performance.now(),
      }
    }
    this.#invalidate()
    return { x: this.#canvas.clientWidth / 2, y: this.#canvas.clientHeight / 2, width: this.#canvas.clientWidth }
  }

  fit(): void {
    if (this.#disposed) return
    this.#flight = undefined
    this.#userMoved = false
    this.#frame3d()
    this.#invalidate()
  }

  clearSelection(): void {
    if (this.#disposed) return
    this.#pointer.clearPinned()
  }

  memory(): NebulaMemory {
    return { layout: this.#layout.memory(), colours: new Map(this.#colours) }
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

  #worldPositions(): Map<string, Vec3> {
    return worldPositions(this.#layout.positions(), this.#orientation)
  }

  #show(payload: GraphPayload): void {
    this.#extent = measureExtent(this.#layout, payload)
    this.#orientation = orientLayout(this.#extent, this.#camera.aspect)
    this.#colours = assignClusterColours(payload, Math.max(1, this.#theme.palette.clusters.length), this.#colours)
    const keys = clusterKeys(payload.nodes)
    // The scene colours a star by its `cluster`: it is given the cluster's colour slot, kept by cluster identity.
    const coloured = {
      ...payload,
      nodes: payload.nodes.map((node) => ({
        ...node,
        cluster: this.#colours.get(keys.get(node.cluster) ?? '') ?? node.cluster,
      })),
    }
    this.#scene.sync(coloured, this.#worldPositions())
    this.#frame3d()
    reportClusters(this.#canvas, coloured, this.#theme.palette.clusters)
    this.#ranked = [...payload.nodes].sort(
      (a, b) => b.degree - a.degree || b.factCount - a.factCount || (a.id < b.id ? -1 : 1),
    )
    this.#largest = largestEntities(payload)
    this.#groups = unlinkedGroups(payload)
    const groupKeys = new Set(this.#groups.map((group) => group.key))
    this.#labels.prune((key) =>
      key.startsWith('c:')
        ? groupKeys.has(key)
        : key.startsWith('n:')
          ? this.#scene.node(key.slice(2)) !== undefined
          : this.#scene.edge(key.slice(2)) !== undefined,
    )
    this.#pointer.follow(
      (id) => this.#scene.node(id),
      (id) => this.#scene.edge(id),
    )
    this.#scene.highlight(this.#pointer.focus)
    const captions = captionsOf(payload)
    this.#legend.replaceChildren(...captions.legend.map((line) => styled('span', line.css, line.text)))
    this.#canvas.setAttribute('aria-label', captions.ariaLabel)
    this.#invalidate()
  }

  #listen(): void {
    const signal = this.#events.signal
    const canvas = this.#canvas
    canvas.addEventListener(
      'webglcontextlost',
      () => {
        this.#contextLost = true
        this.#cancelFrame()
      },
      { signal },
    )
    canvas.addEventListener(
      'webglcontextrestored',
      () => {
        this.#contextLost = false
        this.#invalidate()
      },
      { signal },
    )
    // Focus the mouse gave is marked, so a key pressed after a click (the arrows pan) draws no frame around the
    // canvas; focus the keyboard gave (Tab) is not, and keeps its ring (the page's css reads data-pointer-focus).
    canvas.addEventListener(
      'pointerdown',
      () => {
        canvas.dataset['pointerFocus'] = ''
      },
      { signal },
    )
    canvas.addEventListener(
      'blur',
      () => {
        delete canvas.dataset['pointerFocus']
      },
      { signal },
    )
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
    return (
      !this.#disposed &&
      !this.#paused &&
      this.#visible &&
      !this.#contextLost &&
      document.visibilityState !== 'hidden' &&
      this.#container.isConnected
    )
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
    if (this.#flight !== undefined) again = this.#fly(this.#flight) || again
    const before = this.#camera.position.clone()
    if (this.#controls.update() && this.#pixels(before.distanceTo(this.#camera.position)) > SETTLED_PX) again = true
    this.#renderer.render(this.#scene.object, this.#camera)
    this.#placeLabels()
    reportFrame(this.#canvas, this.#scene, this.#camera, this.#layout.stopped === null)
    if (again) this.#invalidate()
  }

  /** One step of a flight, eased; @returns whether it goes on */
  #fly(flight: Flight): boolean {
    const t = Math.min(1, (performance.now() - flight.start) / FLIGHT_MS)
    const eased = 1 - (1 - t) ** 3
    this.#controls.target.lerpVectors(flight.fromTarget, flight.toTarget, eased)
    this.#camera.position.lerpVectors(flight.fromPosition, flight.toPosition, eased)
    if (t < 1) return true
    this.#flight = undefined
    return false
  }

  #resize(width: number, height: number): void {
    if (width < 1 || height < 1) return
    this.#renderer.setSize(width, height, false)
    this.#camera.aspect = width / height
    this.#camera.updateProjectionMatrix()
    this.#orientation = orientLayout(this.#extent, this.#camera.aspect)
    this.#scene.setPositions(this.#worldPositions())
    this.#userMoved = false
    this.#frame3d()
    this.#invalidate()
  }

  #pixels(length: number): number {
    return worldToPixels(length, this.#camera, this.#controls.target, this.#canvas.clientHeight)
  }

  #frame3d(): void {
    this.#framed = frameGraph(this.#camera, this.#controls, this.#scene, STAR_RADIUS * 0.8)
  }

  #pick(clientX: number, clientY: number): Picked {
    return pickAt(this.#canvas, this.#camera, this.#controls.target, this.#raycaster, this.#scene, clientX, clientY)
  }

  #placeLabels(): void {
    const width = this.#overlay.clientWidth
    const height = this.#overlay.clientHeight
    const wanted = planLabels({
      scene: this.#scene,
      camera: this.#camera,
      target: this.#controls.target,
      ranked: this.#ranked,
      largest: this.#largest,
      groups: this.#groups,
      hovered: this.#pointer.hovered,
      hoveredEdge: this.#pointer.hoveredEdge,
      framedDistance: this.#framed.distance,
      width,
      height,
    })
    this.#labels.place(wanted, this.#camera, width, height, this.#starDiscs())
  }

  /** Every star's disc on screen (CSS pixels of the overlay), which no label may cover. */
  #starDiscs(): { x: number; y: number; r: number }[] {
    const width = this.#overlay.clientWidth
    const height = this.#overlay.clientHeight
    const perPixel = (2 * Math.tan(MathUtils.degToRad(this.#camera.fov / 2))) / Math.max(1, height)
    const discs: { x: number; y: number; r: number }[] = []
    const point = new Vector3()
    this.#scene.forEachNode((node, position) => {
      point.set(position.x, position.y, position.z)
      const distance = point.distanceTo(this.#camera.position)
      point.project(this.#camera)
      if (point.z > 1 || point.z < -1) return
      discs.push({
        x: ((point.x + 1) / 2) * width,
        y: ((1 - point.y) / 2) * height,
        r: nodeRadius(node) / Math.max(1e-6, perPixel * distance),
      })
    })
    return discs
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
}

/**
 * A layout for a payload: warm from `keep` when it knows at least half the nodes (then only what changed moves),
 * else a cold, seeded start.
 */
function layoutFor(payload: GraphPayload, keep: LayoutMemory | undefined): ForceLayout {
  const known = keep === undefined ? 0 : payload.nodes.filter((node) => keep.positions.has(node.id)).length
  const warm = keep !== undefined && known > 0 && known >= payload.nodes.length / 2
  return createForceLayout(payload, warm ? { keep, alpha: 0.3 } : {})
}

/**
 * Mounts the nebula into `container`, which must have a size (the view fills it and follows its resizes).
 * @param container - an element with a definite width and height; the view appends one child and removes it on dispose
 * @param payload - the graph to draw
 * @param handlers - hover and selection callbacks
 * @param memory - an earlier view's places and colours to start from (`NebulaHandle.memory()`)
 * @returns the handle to update, re-theme, pause, resume and dispose the view
 * @throws NebulaUnavailableError when WebGL 2 is unavailable
 */
export function mountNebula(
  container: HTMLElement,
  payload: GraphPayload,
  handlers: NebulaHandlers,
  memory?: NebulaMemory,
): NebulaHandle {
  if (!webglAvailable()) throw new NebulaUnavailableError('WebGL 2 is not available in this browser')
  return new NebulaView(container, payload, handlers, memory)
}
