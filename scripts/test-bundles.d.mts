// Types of scripts/test-bundles.mjs, for the specs that import it.
export declare const BUNDLE_ENTRY: string
export declare const BUNDLING: Record<'unit' | 'host' | 'browser', { aloneSeconds: number; bundleSeconds: number }>
export declare function bundleJobs<J extends { file: string; path: string; tier: string; seconds: number }>(
  jobs: J[],
  read?: (path: string) => string,
): Array<{ files: J[]; tier: string; seconds: number }>
export declare function alone<J extends { tier: string; seconds: number }>(
  job: J,
): { files: J[]; tier: string; seconds: number }
