/**
 * Boot the real DSH rc.8 host from this checkout's devDependencies with the plugin linked into a throwaway DSH
 * home, the way `dsh plugin add /path` links it (a `link:` dependency plus a bundle entry), without pnpm.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The checkout root (the linked plugin package). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** The dsh launcher from the devDependencies. */
export const DSH_BIN = join(REPO_ROOT, 'node_modules/@deepseek-ai/dsh/lib/bin.js')

/** A throwaway DSH home with the plugin linked into one or more profiles. */
export interface DshHome {
  readonly home: string
  /** A workspace directory to run sessions in. */
  readonly workspace: string
  /** Where the plugin keeps its store by default. */
  readonly dataDir: string
  /** Write a profile's user patch layer (cordis.patch.yml). */
  writeProfilePatch(profile: string, yaml: string): void
  /** Remove everything. */
  remove(): void
}

const PROFILE_BUNDLES: Readonly<Record<string, readonly string[]>> = {
  headless: ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-headless', 'dsh-fact-memory'],
  web: ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app', 'dsh-fact-memory'],
}

/**
 * Create a DSH home with the plugin linked into the headless and web profiles.
 * @param root - where to create it; a fresh temporary directory by default.
 * @returns the home.
 */
export function createDshHome(root?: string): DshHome {
  const home = root ?? mkdtempSync(join(tmpdir(), 'fact-memory-dsh-'))
  const workspace = join(home, 'workspace')
  mkdirSync(workspace, { recursive: true })
  for (const [profile, bundles] of Object.entries(PROFILE_BUNDLES)) {
    const dir = join(home, 'profiles', profile)
    mkdirSync(join(dir, 'node_modules'), { recursive: true })
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({
      name: `dsh-profile-${profile}`,
      private: true,
      dependencies: { 'dsh-fact-memory': `link:${REPO_ROOT}` },
      dsh: { profile: { bundles } },
    }, null, 2)}\n`)
    writeFileSync(join(dir, 'cordis.patch.yml'), '[]\n')
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), 'packages:\n  - .\n\nnodeLinker: hoisted\nautoInstallPeers: false\n')
    try {
      symlinkSync(REPO_ROOT, join(dir, 'node_modules', 'dsh-fact-memory'), 'junction')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  return {
    home,
    workspace,
    dataDir: join(home, 'fact-memory'),
    writeProfilePatch(profile, yaml) {
      writeFileSync(join(home, 'profiles', profile, 'cordis.patch.yml'), yaml)
    },
    remove() {
      rmSync(home, { recursive: true, force: true })
    },
  }
}

/** Environment for a host talking to the fake model. */
export function hostEnv(home: DshHome, modelUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '',
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
 * @returns exit code and output.
 */
export async function runHeadless(home: DshHome, modelUrl: string, prompt: string, timeoutMs = 60_000): Promise<RunResult> {
  const child = spawn(process.execPath, [DSH_BIN, '--profile', 'headless', prompt], {
    cwd: home.workspace, env: hostEnv(home, modelUrl), stdio: ['ignore', 'pipe', 'pipe'],
  })
  return collect(child, timeoutMs)
}

/** A running web host. */
export interface WebHost {
  readonly url: string
  readonly output: () => string
  stop(): Promise<void>
}

/**
 * Start `dsh --profile web` on a free loopback port and wait until it serves.
 * @param home - the DSH home.
 * @param modelUrl - the fake model's base URL.
 * @returns the running host.
 */
export async function startWebHost(home: DshHome, modelUrl: string): Promise<WebHost> {
  const child = spawn(process.execPath, [DSH_BIN, '--profile', 'web', '--no-open', '--port', '0'], {
    cwd: home.workspace, env: hostEnv(home, modelUrl), stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`web host did not start:\n${output}`)), 60_000)
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
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return
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
  child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8') })
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  return new Promise((resolveRun) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolveRun({ code, stdout, stderr })
    })
  })
}
