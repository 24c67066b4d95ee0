// The last step of prepare, so of every npm install in a checkout: check that better-sqlite3 loads under this Node
// (or the one named by --node <path>) and, when it does not, say loudly why and how to rebuild it. It never fails
// the install: without the binding the store still runs, on node:sqlite. Plain JavaScript up to the version check,
// so an npm install under an older Node gets told what is wrong instead of a syntax error.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `dsh-fact-memory: this npm install ran under Node ${process.version}; DSH needs 22.19 or newer, and better-sqlite3`,
  )
  console.error(
    '  was just built for this Node, so it will not load under the Node that runs dsh. Put Node 22 first on PATH,',
  )
  console.error('  set npm_config_nodedir to its folder, and run npm install again (.ci/run shows how).')
  process.exit(0)
}
const { bindingAdvice, probeBinding } = await import('./native-binding.ts')
const at = process.argv.indexOf('--node')
const probe = probeBinding(at === -1 ? process.execPath : process.argv[at + 1])
if (probe.ok) {
  console.log(
    `dsh-fact-memory: better-sqlite3 loads under Node ${probe.node.version} (NODE_MODULE_VERSION ${probe.node.abi}).`,
  )
} else {
  const rule = '!'.repeat(100)
  console.error(
    ['', rule, ...bindingAdvice(probe, process.env.npm_config_nodedir, process.execPath), rule, ''].join('\n'),
  )
}
