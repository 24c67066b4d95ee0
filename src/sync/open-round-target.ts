/**
 * Opens what a sync round syncs to, from a vetted `syncTarget` (sync-target.ts): a sync folder (created when
 * missing), or the user's git remote with its working copy under the plugin's data directory, one per remote URL (a
 * target changed to another remote gets a fresh clone, and changing back finds its old one, unpushed commits kept). Opening never throws: a
 * folder that cannot be created or used is a failure in words, and the round that asked for it fails and is retried.
 */
import { createHash } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { GitRemote } from './git-remote.ts'
import type { SegmentCipher } from './segment-cipher.ts'
import { SyncFolder } from './sync-folder.ts'
import type { RoundTarget } from './sync-round.ts'
import { maskUrl } from './sync-target.ts'

/** A folder path or a git URL, as sync-target.ts classified it. */
export type OpenableTarget =
  | { readonly kind: 'folder'; readonly path: string }
  | { readonly kind: 'git'; readonly url: string }

/** Who opens it, and how. */
export interface OpenTargetOptions {
  readonly device: string
  readonly name: string
  /** Seals and opens files; none: plain files. */
  readonly cipher: SegmentCipher | undefined
  /** The plugin's data directory; a remote's working copy goes to `<dataDir>/sync/git/<16 hex of its URL's SHA-256>`. */
  readonly dataDir: string
  /** ISO instant for the device description. */
  readonly now: string
  /** Per git call, in ms; git-remote.ts's default when absent. */
  readonly gitTimeoutMs?: number
}

/** The opened target, or why not. */
export type OpenedTarget =
  | { readonly ok: true; readonly target: RoundTarget }
  | { readonly ok: false; readonly reason: string }

/**
 * Open a round's target.
 * @param target - the folder or git remote.
 * @param options - see {@link OpenTargetOptions}.
 * @returns the target, or why it cannot be used now.
 */
export async function openRoundTarget(target: OpenableTarget, options: OpenTargetOptions): Promise<OpenedTarget> {
  const root =
    target.kind === 'folder'
      ? target.path
      : join(options.dataDir, 'sync', 'git', createHash('sha256').update(target.url).digest('hex').slice(0, 16))
  const shown = target.kind === 'folder' ? target.path : maskUrl(target.url)
  try {
    await mkdir(root, { recursive: true })
    const opened = await SyncFolder.open(root, options.device, options.name, options.cipher, options.now)
    if (!opened.ok) return { ok: false, reason: opened.reason }
    if (target.kind === 'folder') return { ok: true, target: { kind: 'folder', folder: opened.folder } }
    const remote = new GitRemote({
      url: target.url,
      workDir: root,
      device: options.device,
      ...(options.gitTimeoutMs === undefined ? {} : { timeoutMs: options.gitTimeoutMs }),
    })
    return { ok: true, target: { kind: 'git', folder: opened.folder, remote } }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const what = target.kind === 'folder' ? `the sync folder ${shown}` : `the working copy of ${shown}`
    // Worded like sync-round.ts, so the status sorts it the same way.
    const lead =
      code === 'ENOSPC'
        ? "the sync folder's disk is full"
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? `${what} cannot be written`
          : `${what} cannot be reached (${code ?? (error as Error).message})`
    return { ok: false, reason: `${lead}; nothing was lost, the next round tries again` }
  }
}
