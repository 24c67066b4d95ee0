/**
 * Boot the real DSH rc.8 host from this checkout's devDependencies with the plugin linked into a throwaway DSH
 * home, the way `dsh plugin add /path` links it (a `link:` dependency plus a bundle entry), without pnpm.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { DSH_BIN, type DshHome } from '../../scripts/dsh-profile.ts'

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
 * @returns exit code and output.
 */
export async function runHeadless(
  home: DshHome,
  modelUrl: string,
  prompt: string,
  timeoutMs = 60_000,
  cwd = home.workspace,
): Promise<RunResult> {
  const child = spawn(process.execPath, [DSH_BIN, '--profile', 'headless', prompt], {
    cwd,
    env: hostEnv(home, modelUrl),
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
}

/**
 * Start `dsh --profile web` on a free loopback port and wait until it serves.
 * @param home - the DSH home.
 * @param modelUrl - the fake model's base URL.
 * @param extra - extra environment for the host process.
 * @returns the running host.
 */
export async function startWebHost(
  home: DshHome,
  modelUrl: string,
  extra: Record<string, string> = {},
): Promise<WebHost> {
  const child = spawn(process.execPath, [DSH_BIN, '--profile', 'web', '--no-open', '--port', '0'], {
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
    }, 60_000)
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
