/** The nebula view's contract with the page: the callbacks it calls and the handle it returns. Types only. */
import type { GraphEdge, GraphNode, GraphPayload } from '../../src/graph-types.ts'
import type { LayoutMemory } from './layout.ts'

/** What a later view needs to show the same graph in the same places and colours; opaque to the page. */
export interface NebulaMemory {
  readonly layout: LayoutMemory
  /** Colour slot by cluster identity. */
  readonly colours: ReadonlyMap<string, number>
}

/** What the page hears from the view. */
export interface NebulaHandlers {
  /** The star under the pointer changed; null when the pointer left every star. */
  onHover(node: GraphNode | null): void
  /** A star was clicked or tapped; `at` is where it is drawn, in CSS pixels of the canvas, and `width` the canvas's width. */
  onSelectNode(node: GraphNode, at: { readonly x: number; readonly y: number; readonly width: number }): void
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
  /**
   * Flies the camera to a star (at once with reduced motion) and pins it as a click would; the page then opens its
   * panel. Nothing happens for a star that is not drawn.
   * @returns where the star will be drawn once the flight lands (the canvas's centre), or undefined when not drawn
   */
  flyTo(id: string): { readonly x: number; readonly y: number; readonly width: number } | undefined
  /** Frames the drawn graph again (the page's fit control). */
  fit(): void
  /** @returns the places and colours drawn now, for `mountNebula` to start from next time */
  memory(): NebulaMemory
  /** Stops the frame loop until `resume()`. */
  pause(): void
  resume(): void
  /** Frees the renderer, every GPU object, observer and listener, and removes the canvas. Safe to call twice. */
  dispose(): void
}
