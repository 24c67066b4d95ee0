// npm test: build both halves (the booted host loads lib/ and lib/client.js; the build emits without checking), then
// type-check once: sources, tests and scripts in one pass (tests/tsconfig.json includes src/), and the browser half
// against the real host declarations; then run every tests/*.spec.ts with node:test. Extra arguments are passed to node --test.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url))

function run(label, args) {
  const started = Date.now()
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`\n${label} failed (exit ${result.status ?? result.signal})`)
    process.exit(result.status ?? 1)
  }
  console.log(`${label}: ok in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`npm test needs Node >= 22.19 (this is ${process.version}); .ci/run shows how to get it from the npm registry`)
  process.exit(1)
}

run('build', [tsc, '-p', 'tsconfig.json', '--noCheck'])
run('client build', ['scripts/build-client.mjs'])
run('typecheck', [tsc, '-p', 'tests/tsconfig.json'])
run('client typecheck', [tsc, '-p', 'client/tsconfig.json'])
const extra = process.argv.slice(2)
const files = extra.some((arg) => arg.endsWith('.ts'))
  ? []
  : readdirSync(new URL('../tests/', import.meta.url)).filter((file) => file.endsWith('.spec.ts')).sort().map((file) => `tests/${file}`)
run('tests', ['--test', '--test-reporter=spec', '--disable-warning=ExperimentalWarning', ...extra, ...files])
