/**
 * GitRemote: the git transport's shell over the user's own `git` command line. It keeps a working copy of the
 * user's remote under the plugin's data directory and treats it as a sync folder (sync-folder.ts). A round is:
 * fetch; move the branch to the remote's tip without touching the working files (`reset --mixed`); stage and commit
 * only this device's folder; refresh the other devices' files; push. A push that lost a race is not merged or
 * rebased: the round repeats on the new tip (each device touches only its own files, so the re-commit is always
 * clean), with backoff, up to a bound. Every git call has a timeout, never prompts, and uses the user's own
 * credential helper and SSH keys; nothing here stores a credential, and URLs are masked in every message.
 */
import { execFile, type ExecFileException } from 'node:child_process'
import { cp, mkdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { TEMP_PREFIX } from './sealed-file.ts'
import { FOLDER_MARKER } from './sync-folder.ts'
import { maskUrl } from './sync-target.ts'

/** Closed failure codes of the git transport. */
export type GitFailureCode = 'git_missing' | 'unreachable' | 'rejected' | 'timeout' | 'not_a_sync_clone' | 'failed'

/** A failure, in words. */
export interface GitFailure {
  readonly code: GitFailureCode
  readonly message: string
}

/** A result, or the failure. */
export type GitResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: GitFailure }

/** How a GitRemote runs. */
export interface GitRemoteOptions {
  /** The remote URL (sync-target.ts has vetted it). */
  readonly url: string
  /** The working copy's folder, under the plugin's data directory. */
  readonly workDir: string
  /** This device's id: the only folder it commits. */
  readonly device: string
  /** The branch the devices share; `main` by default. */
  readonly branch?: string
  /** Per git call; 60 s by default. */
  readonly timeoutMs?: number
  /** Rounds after a rejected push; 4 by default. */
  readonly retries?: number
  /** First backoff after a rejected push (doubled each time); 250 ms by default. */
  readonly backoffMs?: number
  /** Waits between retries; a timer by default, kept referenced so a final sync at shutdown finishes. */
  readonly sleep?: (ms: number) => Promise<void>
}

/** What one publish did. */
export interface Published {
  /** Whether this device had anything new to commit. */
  readonly committed: boolean
  /** Push attempts made (0 when nothing was to be pushed). */
  readonly attempts: number
}

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly error?: GitFailure
}

const IDENTITY = ['-c', 'user.name=dsh-fact-memory', '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null']

/** One device's working copy of the user's sync remote. */
export class GitRemote {
  private readonly options: Required<Omit<GitRemoteOptions, 'sleep'>> & {
    readonly sleep: (ms: number) => Promise<void>
  }

  /** @param options - see {@link GitRemoteOptions}. */
  constructor(options: GitRemoteOptions) {
    this.options = {
      branch: 'main',
      timeoutMs: 60_000,
      retries: 4,
      backoffMs: 250,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      ...options,
    }
  }

  /**
   * Whether the working copy is a clone yet (a first clone may have failed on an unreachable remote).
   * @returns true once cloned.
   */
  async isCloned(): Promise<boolean> {
    return (await stat(join(this.options.workDir, '.git')).catch(() => undefined)) !== undefined
  }

  /** The folder to open as a sync folder once {@link prepare} succeeded. */
  get root(): string {
    return this.options.workDir
  }

  /**
   * Make the working copy ready: clone it when missing, check that an existing one is of this remote, clear a lock
   * a killed git left behind, and bring it to the remote's tip.
   * @returns nothing, or the failure.
   */
  async prepare(): Promise<GitResult<void>> {
    const { workDir, url, branch } = this.options
    const exists = (await stat(join(workDir, '.git')).catch(() => undefined)) !== undefined
    if (!exists) {
      // Files a round sealed while the remote was unreachable are kept aside and put back into the fresh clone.
      const kept = join(dirname(workDir), `${basename(workDir)}.pending`)
      await rm(kept, { recursive: true, force: true })
      await rename(workDir, kept).catch(() => undefined)
      const restore = async (): Promise<void> => {
        await cp(kept, workDir, { recursive: true, force: false, errorOnExist: false }).catch(() => undefined)
        await rm(kept, { recursive: true, force: true })
      }
      await mkdir(dirname(workDir), { recursive: true })
      const cloned = await this.git(['clone', '--quiet', '--no-tags', url, workDir], dirname(workDir))
      if (cloned.error !== undefined) {
        await rm(workDir, { recursive: true, force: true })
        await restore()
        return { ok: false, error: cloned.error }
      }
      await restore()
      await this.git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`])
    } else {
      const remote = await this.git(['config', '--get', 'remote.origin.url'])
      if (remote.stdout.trim() !== url) {
        return {
          ok: false,
          error: {
            code: 'not_a_sync_clone',
            message: `${workDir} is a working copy of another remote; it is left as it is`,
          },
        }
      }
      // Only this plugin runs git here, one round at a time: a lock left over is from a git process that was killed.
      await rm(join(workDir, '.git', 'index.lock'), { force: true })
    }
    return this.fetchAndRecommit()
  }

  /**
   * Bring the other devices' files to the remote's tip, keeping this device's own files (committed on top when new);
   * a working copy that is missing (a first clone that failed, a folder removed) is cloned first.
   * @returns nothing, or the failure (an unreachable remote leaves the working copy as it was).
   */
  async pull(): Promise<GitResult<void>> {
    return this.prepare()
  }

  private async fetchAndRecommit(): Promise<GitResult<void>> {
    const fetched = await this.git(['fetch', '--quiet', '--prune', 'origin'])
    if (fetched.error !== undefined) return { ok: false, error: fetched.error }
    const rebuilt = await this.recommit()
    return rebuilt.ok ? { ok: true, value: undefined } : rebuilt
  }

  /**
   * Commit this device's folder and push it, repeating the round on the new tip when another device pushed first.
   * A sync round is: `pull`, read the other devices, append this device's segment, `publish`.
   * @param message - the commit message.
   * @returns what was done, or the failure.
   */
  async publish(message: string): Promise<GitResult<Published>> {
    const { branch, retries, backoffMs } = this.options
    const first = await this.recommit(message)
    if (!first.ok) return first
    let attempts = 0
    for (;;) {
      if (!(await this.ahead())) return { ok: true, value: { committed: attempts > 0 || first.value, attempts } }
      attempts += 1
      const pushed = await this.git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`])
      if (pushed.error === undefined) return { ok: true, value: { committed: true, attempts } }
      if (pushed.error.code !== 'rejected' || attempts > retries) return { ok: false, error: pushed.error }
      await this.options.sleep(backoffMs * 2 ** (attempts - 1))
      const pulled = await this.pull()
      if (!pulled.ok) return pulled
    }
  }

  /** Move to the remote tip keeping the working files, commit this device's folder if it changed, refresh the rest. */
  private async recommit(message = `sync: ${this.options.device}`): Promise<GitResult<boolean>> {
    const { branch, device } = this.options
    const tip = await this.git(['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}`])
    if (tip.code === 0) {
      const reset = await this.git(['reset', '--quiet', '--mixed', `refs/remotes/origin/${branch}`])
      if (reset.error !== undefined) return { ok: false, error: reset.error }
    }
    // Only this device's folder, and the folder's marker when this device made it; a path not there yet is skipped.
    // Never a temporary file: one a killed write left behind is half a file, removed by the clean below.
    for (const path of [`devices/${device}`, FOLDER_MARKER]) {
      if ((await stat(join(this.options.workDir, path)).catch(() => undefined)) === undefined) continue
      const added = await this.git(['add', '--all', '--', path, `:(exclude,glob)**/${TEMP_PREFIX}*`])
      if (added.error !== undefined) return { ok: false, error: added.error }
    }
    const staged = await this.git(['diff', '--cached', '--quiet'])
    let committed = false
    if (staged.code === 1) {
      const commit = await this.git([
        ...IDENTITY,
        '-c',
        `user.email=${device}@dsh-fact-memory.invalid`,
        'commit',
        '--quiet',
        '--no-verify',
        '-m',
        message,
      ])
      if (commit.error !== undefined) return { ok: false, error: commit.error }
      committed = true
    }
    const head = await this.git(['rev-parse', '--verify', '--quiet', 'HEAD'])
    if (head.code === 0) {
      // This device's files are all committed now: the rest of the working copy can follow HEAD exactly.
      const refreshed = await this.git(['reset', '--quiet', '--hard', 'HEAD'])
      if (refreshed.error !== undefined) return { ok: false, error: refreshed.error }
      await this.git(['clean', '--quiet', '-d', '--force', '--', 'devices'])
    }
    return { ok: true, value: committed }
  }

  /** Whether HEAD holds commits the remote branch lacks. */
  private async ahead(): Promise<boolean> {
    const head = await this.git(['rev-parse', '--verify', '--quiet', 'HEAD'])
    if (head.code !== 0) return false
    const count = await this.git(['rev-list', '--count', 'HEAD', `--not`, '--remotes=origin'])
    return Number(count.stdout.trim()) > 0
  }

  /** Run git in the working copy (or `cwd`), never prompting, bounded by the timeout. */
  private git(args: readonly string[], cwd: string = this.options.workDir): Promise<Run> {
    const env = {
      ...process.env,
      GIT_TERMINAL_PROMPT: '0',
      // Never climb out of the working copy into a repository around the data directory (a dotfiles repository, say).
      GIT_CEILING_DIRECTORIES: dirname(this.options.workDir),
      GIT_SSH_COMMAND: process.env['GIT_SSH_COMMAND'] ?? 'ssh -o BatchMode=yes',
      LC_ALL: 'C',
    }
    return new Promise((resolve) => {
      execFile(
        'git',
        [...args],
        {
          cwd,
          env,
          timeout: this.options.timeoutMs,
          killSignal: 'SIGKILL',
          maxBuffer: 16 * 1024 * 1024,
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          if (error === null) {
            resolve({ code: 0, stdout, stderr })
            return
          }
          const code = typeof error.code === 'number' ? error.code : -1
          resolve({ code, stdout, stderr, error: classify(error, stderr, args) })
        },
      )
    })
  }
}

/** The failure a git error stands for, in words, URLs masked. */
function classify(error: ExecFileException, stderr: string, args: readonly string[]): GitFailure {
  const verb = args.find((arg) => !arg.startsWith('-') && !arg.includes('=')) ?? 'git'
  if (error.code === 'ENOENT')
    return { code: 'git_missing', message: 'the git command line is not installed or not on PATH' }
  if (error.killed === true || error.signal === 'SIGKILL')
    return { code: 'timeout', message: `git ${verb} did not finish in time; it was stopped and will be tried again` }
  const said = maskUrl(
    stderr
      .trim()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-2)
      .join(' '),
  ).slice(0, 300)
  if (/\[rejected\]|non-fast-forward|fetch first|failed to push some refs/iu.test(stderr)) {
    return { code: 'rejected', message: 'another device pushed first' }
  }
  if (
    /could not resolve host|connection refused|unable to access|does not appear to be a git repository|could not read from remote|repository .* not found|timed out|authentication failed|permission denied/iu.test(
      stderr,
    )
  ) {
    return { code: 'unreachable', message: `the sync remote cannot be reached: ${said}` }
  }
  return { code: 'failed', message: `git ${verb} failed: ${said}` }
}
