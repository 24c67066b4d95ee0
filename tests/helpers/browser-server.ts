/**
 * One Chromium for a whole test run: launched with the same arguments as launchBrowser, it prints its WebSocket
 * endpoint as one line on stdout and serves until its stdin closes (npm test holds that pipe and closes it at the
 * end, or dies and the pipe closes with it). Spec files reach it through FACT_MEMORY_BROWSER_WS. On a close it prints
 * `cpu <seconds>`: the CPU time of Chromium and every process under it, for npm test's --times table.
 */
import { readFileSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { browserArgs, chromiumPath } from './browser.ts'

const server = await chromium.launchServer({ executablePath: chromiumPath(), args: browserArgs() })
process.stdout.write(`${server.wsEndpoint()}\n`)
process.stdin.resume()
process.stdin.on('end', () => void close())
process.stdin.on('error', () => void close())

async function close(): Promise<void> {
  await server.close()
  const cpu = childrenCpuSeconds()
  if (cpu !== undefined) process.stdout.write(`cpu ${cpu.toFixed(1)}\n`)
  process.exit(0)
}

/** User and system seconds of the children this process has waited for (Linux /proc; undefined elsewhere). */
function childrenCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // Fields after the command name in parentheses: cutime and cstime are the 14th and 15th, in clock ticks (100 Hz).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[13]) + Number(fields[14])) / 100
  } catch {
    return undefined
  }
}
