// Types of scripts/test-scratch.mjs, for the specs that import it.
export declare const MEMORY_FOLDER: string
export declare const ROOM_NEEDED: number
export declare function scratchPlace(room: {
  tmpdirVariable: string | undefined
  memoryFree: number | undefined
  machineFree: number
}): 'named' | 'memory' | 'os'
export declare function openScratch(): { env: Record<string, string>; label: string; remove: () => void }
