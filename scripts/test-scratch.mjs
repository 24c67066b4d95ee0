// Where npm test's spec files keep their scratch files (SQLite stores, DSH homes, sync folders, git repositories): in
// memory when the machine has room there, so the suite does not wait on the disk. A store commits with synchronous =
// FULL, and on a shared disk each fsync costs milliseconds; thousands of commits and fresh stores add minutes of
// waiting to a run. A file in a tmpfs is still a real SQLite file (WAL, locks, a killed process loses nothing it
// committed); only a power cut, which no test makes, would tell it from a disk.
import { mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs'
import { freemem } from 'node:os'
import { join } from 'node:path'

/** The in-memory file system Linux mounts for every machine. */
export const MEMORY_FOLDER = '/dev/shm'

/** How much room the memory file system must have, and the machine free memory, before the run puts files there. */
export const ROOM_NEEDED = 4 * 1024 ** 3

/**
 * Where the scratch files go: the folder the caller named with TMPDIR (kept as it is), else the memory file system
 * when it and the machine's free memory both have ROOM_NEEDED, else the OS temporary folder.
 * @param {{ tmpdirVariable: string | undefined, memoryFree: number | undefined, machineFree: number }} room - TMPDIR,
 *   the free bytes of MEMORY_FOLDER (undefined when there is none) and the machine's free memory.
 * @returns {'named' | 'memory' | 'os'}
 */
export function scratchPlace({ tmpdirVariable, memoryFree, machineFree }) {
  if (tmpdirVariable !== undefined && tmpdirVariable !== '') return 'named'
  if (memoryFree !== undefined && memoryFree >= ROOM_NEEDED && machineFree >= ROOM_NEEDED) return 'memory'
  return 'os'
}

/** The free bytes of a file system, or undefined when the folder is not there. */
function freeBytes(folder) {
  try {
    const stats = statfsSync(folder)
    return stats.bavail * stats.bsize
  } catch {
    return undefined
  }
}

/**
 * Make the run's scratch folder in memory when scratchPlace says so.
 * @returns {{ env: Record<string, string>, label: string, remove: () => void }} the TMPDIR the spec files get (empty
 *   when they keep the inherited one), a line for the log, and how to remove the folder at the end.
 */
export function openScratch() {
  const place = scratchPlace({
    tmpdirVariable: process.env['TMPDIR'],
    memoryFree: freeBytes(MEMORY_FOLDER),
    machineFree: freemem(),
  })
  if (place !== 'memory') {
    return { env: {}, label: place === 'named' ? 'TMPDIR as set' : 'the OS temporary folder', remove: () => {} }
  }
  removeOrphans()
  const folder = mkdtempSync(join(MEMORY_FOLDER, `${PREFIX}${process.pid}-`))
  const remove = () => rmSync(folder, { recursive: true, force: true })
  // A run stopped by Ctrl-C or a kill gives the memory back; one killed outright is found by the next run.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      remove()
      process.exit(130)
    })
  }
  return { env: { TMPDIR: folder }, label: `${folder} (memory)`, remove }
}

const PREFIX = 'fact-memory-tests-'

/** Remove the scratch folders of earlier runs whose process is gone (a run killed outright leaves its folder). */
function removeOrphans() {
  for (const name of readdirSync(MEMORY_FOLDER)) {
    const owner = Number(name.slice(PREFIX.length).split('-')[0])
    if (!name.startsWith(PREFIX) || !Number.isInteger(owner) || owner <= 0 || alive(owner)) continue
    rmSync(join(MEMORY_FOLDER, name), { recursive: true, force: true })
  }
}

/** Whether a process with this id runs (signal 0 only asks). */
function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}
