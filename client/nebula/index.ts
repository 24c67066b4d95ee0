/**
 * Entry of the lazily loaded nebula chunk: the page imports it with `import()` only when the graph tab opens, so
 * three.js stays out of the main bundle. Re-exports the view's mount function, its WebGL probe and its types.
 */
export { mountNebula } from './view.ts'
export { NebulaUnavailableError, webglAvailable } from './webgl.ts'
export type { NebulaHandle, NebulaHandlers, NebulaMemory } from './handle.ts'
