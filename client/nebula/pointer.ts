/**
 * The nebula's pointer and selection: which star and edge the pointer is over, which star a click pinned, and when
 * a press counts as a click rather than a drag. It listens on the canvas, asks the view to pick and redraw, and
 * tells the page about hovers and selections.
 */
import type { GraphEdge, GraphNode } from '../../src/graph-types.ts'
import type { NebulaHandlers } from './handle.ts'
import type { Picked } from './picking.ts'

/** Pixels a press may travel and still count as a click. */
const CLICK_SLOP_PX = 5

/** What the pointer needs from the view. */
export interface PointerHost {
  /** The star or edge at a client point. */
  pick(clientX: number, clientY: number): Picked
  /** Highlights a star (or none) and redraws. */
  highlight(nodeId: string | null): void
  /** Where a star is drawn, in CSS pixels of the canvas, with the canvas's width. */
  screenOf(nodeId: string): { x: number; y: number; width: number }
  /** Asks for a redraw. */
  invalidate(): void
}

/** The hover and selection state of one canvas. */
export class NebulaPointer {
  readonly #canvas: HTMLCanvasElement
  readonly #host: PointerHost
  readonly #handlers: NebulaHandlers
  #hovered: GraphNode | null = null
  #hoveredEdge: GraphEdge | null = null
  #pinned: string | null = null
  #pressed: { x: number; y: number; id: number } | null = null
  #moved = false

  /**
   * @param canvas - the canvas listened on
   * @param host - picks and redraws
   * @param handlers - the page's callbacks
   * @param signal - aborting it removes every listener
   */
  constructor(canvas: HTMLCanvasElement, host: PointerHost, handlers: NebulaHandlers, signal: AbortSignal) {
    this.#canvas = canvas
    this.#host = host
    this.#handlers = handlers
    canvas.addEventListener('pointermove', (event) => this.#onPointerMove(event), { signal })
    canvas.addEventListener(
      'pointerdown',
      (event) => {
        this.#pressed = { x: event.clientX, y: event.clientY, id: event.pointerId }
        this.#moved = false
      },
      { signal },
    )
    canvas.addEventListener('pointerup', (event) => this.#onPointerUp(event), { signal })
    canvas.addEventListener(
      'pointerleave',
      () => {
        this.#hoveredEdge = null
        this.setHover(null)
      },
      { signal },
    )
    canvas.addEventListener(
      'keydown',
      (event) => {
        if (event.key === 'Escape') this.clearPinned()
      },
      { signal },
    )
  }

  /** The star under the pointer. */
  get hovered(): GraphNode | null {
    return this.#hovered
  }

  /** The edge under the pointer (only when no star is). */
  get hoveredEdge(): GraphEdge | null {
    return this.#hoveredEdge
  }

  /** The id of the clicked star. */
  get pinned(): string | null {
    return this.#pinned
  }

  /** The star to highlight: the hovered one, else the pinned one. */
  get focus(): string | null {
    return this.#hovered?.id ?? this.#pinned
  }

  /** Pins a star as a click would (the page found it by name), and highlights it unless another is hovered. */
  pin(id: string): void {
    this.#pinned = id
    this.#host.highlight(this.focus)
  }

  /** Drops the pinned star's highlight; does nothing when none is pinned. */
  clearPinned(): void {
    if (this.#pinned === null) return
    this.#pinned = null
    this.#host.highlight(this.focus)
  }

  /**
   * Keeps the state true to a new drawing: forgets a pinned or hovered star that is gone, takes the new version of
   * a hovered edge.
   * @param node - the drawn node with an id, if any
   * @param edge - the drawn edge with an id, if any
   */
  follow(node: (id: string) => GraphNode | undefined, edge: (id: string) => GraphEdge | undefined): void {
    if (this.#pinned !== null && node(this.#pinned) === undefined) this.#pinned = null
    if (this.#hoveredEdge !== null) this.#hoveredEdge = edge(this.#hoveredEdge.id) ?? null
    if (this.#hovered !== null && node(this.#hovered.id) === undefined) this.setHover(null)
  }

  /** Sets the hovered star, highlights it and tells the page; nothing when it is the same star. */
  setHover(node: GraphNode | null): void {
    if (node?.id === this.#hovered?.id) return
    this.#hovered = node
    this.#host.highlight(this.focus)
    this.#handlers.onHover(node)
  }

  #onPointerMove(event: PointerEvent): void {
    if (
      this.#pressed !== null &&
      Math.hypot(event.clientX - this.#pressed.x, event.clientY - this.#pressed.y) > CLICK_SLOP_PX
    )
      this.#moved = true
    if (event.buttons !== 0) return
    const picked = this.#host.pick(event.clientX, event.clientY)
    const edge = picked.node === undefined ? (picked.edge ?? null) : null
    if (edge?.id !== this.#hoveredEdge?.id) {
      this.#hoveredEdge = edge
      this.#host.invalidate()
    }
    this.setHover(picked.node ?? null)
    this.#canvas.style.cursor = picked.node !== undefined || edge !== null ? 'pointer' : ''
  }

  #onPointerUp(event: PointerEvent): void {
    const pressed = this.#pressed
    this.#pressed = null
    if (pressed === null || pressed.id !== event.pointerId || this.#moved) return
    const picked = this.#host.pick(event.clientX, event.clientY)
    this.#pinned = picked.node?.id ?? null
    this.#host.highlight(this.focus)
    if (picked.node !== undefined) this.#handlers.onSelectNode(picked.node, this.#host.screenOf(picked.node.id))
    else if (picked.edge !== undefined) this.#handlers.onSelectEdge(picked.edge)
  }
}
