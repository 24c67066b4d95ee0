/**
 * The bench's host part: boot the real web host (`dsh --profile web`) on a copy of a bench store and read what the
 * nebula adds to the host process's resident memory. A measurement, not a test.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createDshHome } from './dsh-profile.ts'
import { startWebHost } from '../tests/helpers/dsh-host.ts'
import { FactMemoryApi } from '../tests/helpers/fact-memory-web.ts'

/** Resident memory of the web host, in MB, at three moments. */
export interface HostRss {
  /** With the store open (after a status call), before any graph. */
  readonly idleMb: number
  /** After the first `graph {}`. */
  readonly firstNebulaMb: number
  /** After ten more nebulas (current and all scopes) and ten trees. */
  readonly afterMoreMb: number
}

/**
 * Measure the host's RSS around the nebula on a copy of a closed store.
 * @param storeDir - the bench store's data directory (its memory.db is copied; the store must be closed).
 * @param centers - subjects to centre the trees on.
 * @returns RSS in MB.
 */
export async function hostNebulaRss(storeDir: string, centers: readonly string[]): Promise<HostRss> {
  const home = createDshHome()
  mkdirSync(home.dataDir, { recursive: true })
  for (const file of ['memory.db', 'memory.db-wal']) {
    if (existsSync(join(storeDir, file))) copyFileSync(join(storeDir, file), join(home.dataDir, file))
  }
  // No model is called: graph and status only read the store.
  const host = await startWebHost(home, 'http://127.0.0.1:9')
  try {
    const api = new FactMemoryApi(host.url)
    const settle = async (): Promise<number> => {
      await new Promise((resolveWait) => setTimeout(resolveWait, 1500))
      return rssMb(host.pid)
    }
    await api.ok('status', {})
    const idleMb = await settle()
    await api.ok('graph', {})
    const firstNebulaMb = await settle()
    for (let i = 0; i < 10; i += 1) {
      await api.ok('graph', { scope: i % 2 === 0 ? 'all' : 'current' })
      await api.ok('graph', { view: 'tree', center: centers[i % centers.length] })
    }
    const afterMoreMb = await settle()
    return { idleMb, firstNebulaMb, afterMoreMb }
  } finally {
    await host.stop()
    home.remove()
  }
}

/** VmRSS of a process, in MB (Linux /proc). */
function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/u.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Math.round(Number(match?.[1] ?? 0) / 1024)
}
