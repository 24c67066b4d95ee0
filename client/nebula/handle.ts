/** The nebula view's contract with the page: the callbacks it calls and the handle it returns. Types only. */
import type { GraphEdge, GraphNode, GraphPayload } from '../../src/graph-types.ts'

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
