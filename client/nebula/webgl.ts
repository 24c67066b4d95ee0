/**
 * Whether the browser can draw the nebula: a WebGL 2 probe, and the error the mount throws when it cannot, so the
 * page can draw its SVG tree instead.
 */

/** Thrown by `mountNebula` when no WebGL 2 context can be created. */
export class NebulaUnavailableError extends Error {
  readonly code = 'webgl_unavailable'

  /** @param message - what failed; @param options - the underlying error as `cause` */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'NebulaUnavailableError'
  }
}

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
