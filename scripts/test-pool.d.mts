// Types of scripts/test-pool.mjs, for the specs that import it.
export declare const RECORDED_TIMES: string
export declare function knownTimings(root: string): Record<string, number>
export declare function recordedAfter(
  recorded: Record<string, number>,
  measured: Record<string, number>,
  existing: readonly string[],
): Record<string, number>
export declare function timingsFile(root: string): string
export declare function writeTimings(path: string, measured: Record<string, number>): void
