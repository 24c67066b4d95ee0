/**
 * Sealed file writes for sync folders: the bytes go to a temporary name beside the target, are flushed to disk, and
 * only then renamed into place, so a file-sync tool or a reader never sees half a file under the final name. Async,
 * so a slow or hung network share never holds the event loop.
 */
import { randomBytes } from 'node:crypto'
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** Temporary names start with this, so listings skip them. */
export const TEMP_PREFIX = '.tmp-'

/**
 * Write a file under its final name only once all of it is on disk.
 * @param path - the final path; its folder is created when missing.
 * @param bytes - the content.
 */
export async function writeSealed(path: string, bytes: Uint8Array): Promise<void> {
  const dir = dirname(path)
  await mkdir(dir, { recursive: true })
  const temp = join(dir, `${TEMP_PREFIX}${basename(path)}-${process.pid}-${randomBytes(4).toString('hex')}`)
  try {
    const handle = await open(temp, 'wx', 0o600)
    try {
      await handle.writeFile(bytes)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  await syncDir(dir)
}

/** Flush a folder's entry list, so a rename survives a power cut; some file systems (and Windows) refuse, which is fine. */
async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(dir, 'r')
    await handle.sync()
  } catch {
    // A folder that cannot be opened or flushed: the rename itself has happened; durability is best effort here.
  } finally {
    await handle?.close()
  }
}
