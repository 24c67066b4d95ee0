// Build the browser half with esbuild:
//  - lib/client.js: the boot bundle, in the host's module-loader format (a classic script that registers a
//    CommonJS factory under the package name; `require` sees only the host's shared modules, so Lit travels inside);
//  - lib/client/nebula.js: the three.js graph as an ES module chunk, loaded with import() only when the graph
//    tab opens, so pages that never open it do not pay for three.js.
import { build } from 'esbuild'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const { name } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'))
const shared = ['react', 'react/jsx-runtime', 'react-dom', 'react-dom/client', '@deepseek-ai/*']
const minify = !process.argv.includes('--dev')
mkdirSync(`${root}/lib/client`, { recursive: true })

await build({
  absWorkingDir: root,
  entryPoints: ['client/nebula/index.ts'],
  outfile: 'lib/client/nebula.js',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
})

// The boot bundle names the chunk with its content hash, so a browser never pairs a new page with an old chunk; the
// asset route (contentRev in src/routes/assets.ts) lets a browser keep the chunk under that name for good.
const nebulaRev = createHash('sha256')
  .update(readFileSync(`${root}/lib/client/nebula.js`))
  .digest('hex')
  .slice(0, 12)

await build({
  absWorkingDir: root,
  entryPoints: ['client/index.ts'],
  outfile: 'lib/client.js',
  bundle: true,
  format: 'cjs',
  platform: 'browser',
  target: 'es2022',
  minify,
  sourcemap: 'linked',
  legalComments: 'none',
  external: shared,
  define: { 'process.env.NODE_ENV': '"production"', FM_NEBULA_REV: JSON.stringify(nebulaRev) },
  banner: {
    js: `window.__ModuleLoader__.load({ id: ${JSON.stringify(name)}, factory: (require) => {\nvar module = { exports: {} }; var exports = module.exports;`,
  },
  footer: { js: 'return module.exports; } });' },
  logLevel: 'warning',
})

const size = (file) => `${(statSync(`${root}/${file}`).size / 1024).toFixed(0)} KiB`
console.log(`client: lib/client.js ${size('lib/client.js')}, lib/client/nebula.js ${size('lib/client/nebula.js')}`)
