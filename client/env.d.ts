/** Build-time constants the esbuild script defines. */

/** Content hash of the nebula chunk, so a new build is never served from a stale cache. */
declare const FM_NEBULA_REV: string

/** The host shares its React 18 instance with plugins through its module loader; only the parts we use are typed. */
declare module 'react' {
  const React: import('./host.ts').ReactLike
  export default React
}
