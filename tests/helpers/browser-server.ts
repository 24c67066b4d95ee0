/**
 * One Chromium for a whole test run: launched with the same arguments as launchBrowser, it prints its WebSocket
 * endpoint as one line on stdout and serves until its stdin closes (npm test holds that pipe and closes it at the
 * end, or dies and the pipe closes with it). Spec files reach it through FACT_MEMORY_BROWSER_WS.
 */
import { chromium } from 'playwright-core'
import { browserArgs, chromiumPath } from './browser.ts'

const server = await chromium.launchServer({ executablePath: chromiumPath(), args: browserArgs() })
process.stdout.write(`${server.wsEndpoint()}\n`)
process.stdin.resume()
process.stdin.on('end', () => {
  void server.close().then(() => process.exit(0))
})
process.stdin.on('error', () => {
  void server.close().then(() => process.exit(0))
})
