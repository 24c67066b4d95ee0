/**
 * The bench's import part: boot the real web host on an empty store, preview and then commit a large JSONL file
 * (120,000 one-line facts by default) through the management API, and meanwhile call `status` every 250 ms to
 * time how long another route waits. A measurement, not a test.
 */
import { createDshHome } from './dsh-profile.ts'
import { startWebHost } from '../tests/helpers/dsh-host.ts'
import { FactMemoryApi, PREFIX, rawRequest } from '../tests/helpers/fact-memory-web.ts'

/** How long one step took and how long the status calls made meanwhile waited. */
export interface ImportStep {
  readonly ms: number
  readonly statusCalls: number
  readonly statusMaxMs: number
  readonly statusP50Ms: number
}

/** One run of the import part. */
export interface ImportBench {
  readonly lines: number
  readonly bytes: number
  readonly preview: ImportStep
  readonly commit: ImportStep
}

/**
 * The file: `lines` distinct facts of about 45 bytes each, in 4,000 subjects.
 * @param lines - how many.
 * @returns the JSONL text.
 */
export function importFile(lines: number): string {
  let text = ''
  for (let i = 0; i < lines; i += 1)
    text += `${JSON.stringify({ subject: `s${i % 4000}`, property: `p${Math.floor(i / 4000)}`, value: String(i) })}\n`
  return text
}

/**
 * Preview and commit the file on a fresh host, timing status calls made meanwhile.
 * @param lines - how many facts the file holds.
 * @returns the timings.
 */
export async function importBench(lines = 120_000): Promise<ImportBench> {
  const home = createDshHome()
  // No model is called: import and status only touch the store.
  const host = await startWebHost(home, 'http://127.0.0.1:9')
  try {
    const api = new FactMemoryApi(host.url)
    await api.ok('status', {})
    const content = importFile(lines)
    let token = ''
    const preview = await whileStatus(host.url, async () => {
      token = String((await longCall(host.url, { mode: 'preview', content }))['token'])
    })
    const fence = await api.fence()
    const commit = await whileStatus(host.url, async () => {
      await longCall(host.url, { mode: 'commit', content, token, ...fence })
    })
    return { lines, bytes: Buffer.byteLength(content), preview, commit }
  } catch (error) {
    throw new Error(`the import bench failed; the host said:\n${host.output().slice(-3000)}`, { cause: error })
  } finally {
    await host.stop()
    home.remove()
  }
}

/** One import call over node:http, which sets no deadline on a slow answer (fetch gives up after 300 s). */
async function longCall(url: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await rawRequest(url, {
    path: `${PREFIX}/import`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (answer.status !== 200 || answer.json?.['ok'] !== true)
    throw new Error(`import answered ${answer.status}: ${answer.text.slice(0, 500)}`)
  return answer.json
}

/** Run `work`, calling status every 250 ms (a new connection each) until it ends; each call's wait is timed. */
async function whileStatus(url: string, work: () => Promise<void>): Promise<ImportStep> {
  const waits: number[] = []
  let running = true
  const poll = (async () => {
    while (running) {
      const started = performance.now()
      const answer = await rawRequest(url, {
        path: `${PREFIX}/status`,
        headers: { 'content-type': 'application/json' },
        body: '{"summary":true}',
      })
      if (answer.status !== 200) throw new Error(`status answered ${answer.status}: ${answer.text.slice(0, 300)}`)
      waits.push(performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  })()
  const started = performance.now()
  await work()
  const ms = performance.now() - started
  running = false
  await poll
  const sorted = [...waits].sort((a, b) => a - b)
  return {
    ms: Math.round(ms),
    statusCalls: waits.length,
    statusMaxMs: Math.round(sorted.at(-1) ?? 0),
    statusP50Ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
  }
}
