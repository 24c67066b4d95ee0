/**
 * The README's "What the model sees" examples are real: a scripted conversation runs through the real rc.8 agent
 * services in process with the plugin at its defaults, and every `text` block of that section (a tool call, a tool
 * answer, the directory, the recall block) must occur in what the model received, dates and times aside.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { Fiber } from '@deepseek-ai/cordis'
import * as plugin from '../src/index.ts'
import { configWith } from '../src/config.ts'
import { startInprocHost, type InprocHost, type InprocStep } from './helpers/inproc-host.ts'

/** The repository root (this file is not in a host's tier: it boots none). */
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')

/** The README's section of this heading, up to the next second-level heading. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`)
  assert.notEqual(start, -1, `the README has no "${heading}" section`)
  const end = README.indexOf('\n## ', start + 1)
  return README.slice(start, end === -1 ? undefined : end)
}

/** Dates and clock times differ from run to run; everything else must match byte for byte. */
function undated(text: string): string {
  return text.replace(/\d{4}-\d{2}-\d{2}/gu, '<date>').replace(/\b\d{2}:\d{2}\b/gu, '<time>')
}

const call = (name: string, args: Record<string, unknown>): InprocStep => ({ call: { name, args } })

describe('the README\'s "What the model sees", rendered by the real agent loop at the default configuration', () => {
  let host: InprocHost
  let fiber: Fiber
  let dataDir: string
  let transcript = ''

  before(async () => {
    host = await startInprocHost()
    dataDir = mkdtempSync(join(tmpdir(), 'fact-memory-readme-'))
    fiber = await host.ctx.plugin(plugin, configWith({ dataDir, storeTimezone: 'UTC' }))
    const say = async (agent: Awaited<ReturnType<InprocHost['agent']>>, text: string, ...steps: InprocStep[]) => {
      host.adapter.script.push(...steps, { text: 'ok' })
      await host.say(agent, text)
    }
    const first = await host.agent('docs-a')
    await say(
      first,
      'remember that billing-api runs on port 7801',
      call('memory_write', {
        subject: 'billing-api',
        property: 'port',
        value: '7801',
        evidence: 'explicit_user',
        quote: 'billing-api runs on port 7801',
      }),
    )
    await say(
      first,
      'billing-api moved to port 7802',
      call('memory_write', {
        subject: 'billing-api',
        property: 'port',
        value: '7802',
        evidence: 'explicit_user',
        quote: 'billing-api moved to port 7802',
      }),
    )
    await say(
      first,
      'the tests run with npm run test:billing',
      call('memory_write', {
        subject: 'billing-api',
        property: 'test command',
        value: 'npm run test:billing',
        evidence: 'explicit_user',
        quote: 'the tests run with npm run test:billing',
        cues: ['run the tests', '跑测试'],
      }),
    )
    await say(
      first,
      'which port does billing-api use?',
      call('memory_search', { query: 'which port does billing-api use?' }),
    )
    await say(
      first,
      'the staging db is db-2.internal',
      call('memory_write', { subject: 'staging db', property: 'host', value: 'db-2.internal', evidence: 'observed' }),
    )
    // A library larger than the directory: forty newer facts, so the staging db is left for recall to bring.
    const second = await host.agent('docs-b')
    await say(
      second,
      'note these owners',
      ...Array.from({ length: 40 }, (_, index) =>
        call('memory_write', { subject: `service-${index}`, property: 'owner', value: `team ${index}` }),
      ),
    )
    const third = await host.agent('docs-c')
    await say(third, 'connect to the staging db and check the last migration')
    await say(third, 'forget the old port', call('memory_forget', { fact_id: 1 }))
    transcript = host.adapter.requests
      .flatMap((request) => request.messages)
      .map((message) =>
        message.content
          .map((block) => {
            if (block.type === 'text') return block.text
            if (block.type === 'tool-call') return `${block.name} ${block.arguments}`
            if (block.type === 'tool-result')
              return block.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
            return ''
          })
          .join('\n'),
      )
      .join('\n\n')
  })
  after(async () => {
    await fiber?.dispose()
    await host?.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('shows only text the model received: each example block occurs in the conversation', () => {
    const blocks = [...section('What the model sees').matchAll(/```text\n([\s\S]*?)\n```/gu)].map(
      (match) => match[1] ?? '',
    )
    assert.ok(
      blocks.length >= 6,
      `the section shows ${blocks.length} examples; it should show a call and an answer for each tool, the directory and a recall block`,
    )
    const received = undated(transcript)
    for (const block of blocks) {
      assert.ok(
        received.includes(undated(block)),
        `the model never received this:\n${block}\n\nIt received:\n${transcript}`,
      )
    }
  })

  it('covers the three tools, the directory and per-turn recall', () => {
    const text = section('What the model sees')
    for (const mark of [
      'memory_search {',
      'memory_write {',
      'memory_forget {',
      'Fact memory: values recorded in earlier conversations',
      'Fact memory recalled for this message',
    ]) {
      assert.ok(text.includes(mark), `no example of ${mark}`)
    }
  })
})
