/**
 * Boot the real DSH rc.8 host from this checkout's devDependencies with the plugin linked into a throwaway DSH
 * home, the way `dsh plugin add /path` links it (a `link:` dependency plus a bundle entry), without pnpm.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DSH_BIN, type DshHome } from '../../scripts/dsh-profile.ts'
import { patient } from './poll.ts'

export { createDshHome, DSH_BIN, REPO_ROOT, type DshHome } from '../../scripts/dsh-profile.ts'

/**
 * Environment for a host talking to the fake model. Its temp dir is inside the throwaway home, so what the host
 * makes there (the spill store's private folder, made on every boot) goes when the home does.
 */
export function hostEnv(home: DshHome, modelUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const temp = join(home.home, 'tmp')
  mkdirSync(temp, { recursive: true })
  return {
    PATH: process.env['PATH'] ?? '',
    TMPDIR: temp,
    HOME: home.home,
    DSH_HOME: home.home,
    DEEPSEEK_BASE_URL: modelUrl,
    DEEPSEEK_API_KEY: 'fake-key',
    DSH_TELEMETRY_DISABLED: '1',
    NO_COLOR: '1',
    ...extra,
  }
}

/** The result of one headless run. */
export interface RunResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Run one headless session: `dsh --profile headless "<prompt>"`, which prints the final answer and exits.
 * @param home - the DSH home.
 * @param modelUrl - the fake model's base URL.
 * @param prompt - the user's message.
 * @param timeoutMs - kill the host after this long.
 * @param cwd - the working directory the session runs in (its header's cwd); the home's workspace by default.
 * @param extra - extra environment for the run.
 * @returns exit code and output.
 */
export async function runHeadless(
  home: DshHome,
  modelUrl: string,
  prompt: string,
  timeoutMs = 60_000,
  cwd = home.workspace,
  extra: Record<string, string> = {},
): Promise<RunResult> {
  const child = spawn(process.execPath, [DSH_BIN, '--profile', 'headless', prompt], {
    cwd,
    env: hostEnv(home, modelUrl, extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return collect(child, timeoutMs)
}

/** A running web host. */
export interface WebHost {
  readonly url: string
  /** The host process's id (to read its memory). */
  readonly pid: number
  readonly output: () => string
  stop(): Promise<void>
  /** kill -9: the process ends at once, with no unload, wherever it was. */
  kill(): Promise<void>
}

/** Mounts a 16 KiB tmpfs at its first argument, then runs the rest in its place (in a mount namespace of its own). */
const FULL_DISK_SCRIPT = 'mount -t tmpfs -o size=16k,mode=0700 tmpfs "$0" && exec "$@"'
const NAMESPACE = ['--user', '--map-root-user', '--mount']

/**
 * Whether a host can be given a full disk: `unshare` makes a user and mount namespace and mounts a tmpfs in it
 * (root, or a kernel that allows unprivileged user namespaces).
 * @returns true when it can.
 */
export function fullDiskAvailable(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'fact-memory-full-disk-'))
  try {
    return spawnSync('unshare', [...NAMESPACE, 'sh', '-c', FULL_DISK_SCRIPT, probe, 'true']).status === 0
  } finally {
    rmSync(probe, { recursive: true, force: true })
  }
}

/**
 * Start `dsh --profile web` on a free loopback port and wait until it serves.
 * @param home - the DSH home.
 * @param modelUrl - the fake model's base URL.
 * @param extra - extra environment for the host process.
 * @param fullDisk - an empty folder that, for this host alone, is a 16 KiB disk (see {@link fullDiskAvailable}).
 * @returns the running host.
 */
export async function startWebHost(
  home: DshHome,
  modelUrl: string,
  extra: Record<string, string> = {},
  fullDisk?: string,
): Promise<WebHost> {
  const command = [process.execPath, DSH_BIN, '--profile', 'web', '--no-open', '--port', '0']
  // unshare and sh exec in place, so the child's pid stays the host's own (kill -9 reaches it).
  const [file, ...args] =
    fullDisk === undefined ? command : ['unshare', ...NAMESPACE, 'sh', '-c', FULL_DISK_SCRIPT, fullDisk, ...command]
  const child = spawn(file as string, args, {
    cwd: home.workspace,
    env: hostEnv(home, modelUrl, extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll)
      child.kill('SIGKILL')
      reject(new Error(`web host did not start:\n${output}`))
    }, patient(60_000))
    const poll = setInterval(() => {
      const match = /(http:\/\/127\.0\.0\.1:\d+)/u.exec(output)
      if (match?.[1] !== undefined) {
        clearTimeout(timer)
        clearInterval(poll)
        resolveUrl(match[1])
      }
    }, 50)
    child.once('exit', (code) => {
      clearTimeout(timer)
      clearInterval(poll)
      reject(new Error(`web host exited with ${code}:\n${output}`))
    })
  })
  return {
    url,
    pid: child.pid ?? 0,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 8000)
      await exited
      clearTimeout(timer)
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()))
      child.kill('SIGKILL')
      await exited
    },
  }
}

function collect(child: ChildProcess, timeoutMs: number): Promise<RunResult> {
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  return new Promise((resolveRun) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolveRun({ code, stdout, stderr })
    })
  })
}
