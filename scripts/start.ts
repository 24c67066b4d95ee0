/**
 * npm start: build the plugin, warn when better-sqlite3 does not load under this Node, link this checkout into a
 * project-local DSH home (.dsh-home/), and boot the real DSH web host on 127.0.0.1 with the plugin loaded. Prints
 * the URL; Ctrl-C stops it. Arguments after `--` go to the web host (e.g. `npm start -- --port 4000`).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createDshHome, DSH_BIN, REPO_ROOT } from './dsh-profile.ts'
import { bindingAdvice, probeBinding } from './native-binding.ts'

const DEFAULT_PORT = '3999'

if (!existsSync(DSH_BIN)) {
  console.error('dsh-fact-memory: the DSH host is not installed here; run `npm install` first.')
  process.exit(1)
}

for (const step of [
  [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
  [join(REPO_ROOT, 'scripts/build-client.mjs')],
]) {
  const build = spawnSync(process.execPath, step, { cwd: REPO_ROOT, stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

// The host runs under this Node; the store would otherwise fall back to node:sqlite without a word.
const binding = probeBinding()
if (!binding.ok) console.error(bindingAdvice(binding, process.env['npm_config_nodedir'], process.execPath).join('\n'))

const home = createDshHome(process.env['FACT_MEMORY_DSH_HOME'] ?? join(REPO_ROOT, '.dsh-home'))
const args = process.argv.slice(2)
const port = args.includes('--port') ? [] : ['--port', process.env['PORT'] ?? DEFAULT_PORT]

if ((process.env['DEEPSEEK_API_KEY'] ?? '') === '') {
  console.log('dsh-fact-memory: DEEPSEEK_API_KEY is not set. The web UI opens, but the model cannot')
  console.log('  answer until you set it (export DEEPSEEK_API_KEY=sk-…) or configure a model under Settings → Models.')
}
console.log(`dsh-fact-memory: DSH home ${home.home}; fact store ${home.dataDir}`)

const child = spawn(process.execPath, [DSH_BIN, '--profile', 'web', '--no-open', ...port, ...args], {
  cwd: home.workspace,
  env: { ...process.env, DSH_HOME: home.home },
  stdio: ['inherit', 'pipe', 'inherit'],
})
let announced = false
child.stdout?.on('data', (chunk: Buffer) => {
  const text = chunk.toString('utf8')
  process.stdout.write(text)
  const url = /(http:\/\/127\.0\.0\.1:\d+)/u.exec(text)?.[1]
  if (!announced && url !== undefined) {
    announced = true
    console.log(`\ndsh-fact-memory is running in DeepSeek Harness: ${url}\n`)
  }
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)))
