// Types of scripts/test-failures.mjs, for the specs that import it.
export declare const RECAP_LINES: number
export declare function failureRecap(output: string): string
