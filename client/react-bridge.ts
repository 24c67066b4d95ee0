/** Mount Lit elements inside the host's React tree: properties through a ref (React 18 would set attributes). */
import type { ReactLike, ReactNode } from './host.ts'

/**
 * A React component hosting one custom element.
 * @param react - the host's React.
 * @returns the component; `props` are assigned as element properties on every render.
 */
export function litHost(
  react: ReactLike,
): (props: { tag: string; props: Record<string, unknown>; style?: Record<string, unknown> }) => ReactNode {
  return ({ tag, props, style }) => {
    const ref = react.useRef<HTMLElement | null>(null)
    react.useLayoutEffect(() => {
      if (ref.current !== null) Object.assign(ref.current, props)
    })
    // No inline `display`: it would outrank the element's own :host display.
    return react.createElement(tag, { ref, style: style ?? { height: '100%' } })
  }
}

/**
 * Define a custom element once; a hot reload keeps the first definition instead of throwing.
 * @param tag - the element name.
 * @param element - its class.
 */
export function defineOnce(tag: string, element: CustomElementConstructor): void {
  if (customElements.get(tag) === undefined) customElements.define(tag, element)
}
