/**
 * Folded log lines as the model meets them: the real DSH rc.8 host, one conversation (a session on one web host) per
 * night in a throwaway DSH home, the scripted fake model on loopback. Assertions read what the model received: the
 * memory_write answers, the memory_search result and the directory.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { ScriptStep } from './helpers/fake-model.ts'
import {
  directoryOf,
  reply,
  search,
  startConversations,
  write,
  type HeadlessConversations,
} from './helpers/headless-conversation.ts'

let conversations: HeadlessConversations

before(async () => {
  conversations = await startConversations()
  await conversations.shareHost()
})
after(async () => {
  await conversations.close()
})

const converse: HeadlessConversations['converse'] = (prompt, ...steps) => conversations.converse(prompt, ...steps)

const report = (date: string): string => `nightly backup finished ${date}, 412 files`
/** `YYYY-MM-DD`, `back` days before today (UTC): a report names a day that has come, whenever the test runs. */
const daysAgo = (back: number): string => new Date(Date.now() - back * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
const nightly = (date: string): ScriptStep =>
  write({
    subject: 'backup-runner',
    property: 'last run',
    value: report(date),
    evidence: 'observed',
    quote: `backup-runner: ${report(date)}`,
  })

describe('folded log lines in a real DSH host', () => {
  it('a nightly line written on three dates is one row seen 3 times in the memory_search result the model received', async () => {
    const first = await converse("record tonight's backup report", nightly(daysAgo(3)), reply)
    assert.match(
      first.toolResults[0] ?? '',
      new RegExp(`^outcome: saved\\nStored #(\\d+): backup-runner · last run = ${report(daysAgo(3))}`, 'u'),
    )
    const id = /Stored #(\d+)/u.exec(first.toolResults[0] ?? '')?.[1] ?? '?'

    const second = await converse("record tonight's backup report", nightly(daysAgo(2)), reply)
    assert.match(
      second.toolResults[0] ?? '',
      new RegExp(
        `^outcome: saved\\nFolded into #${id}, the same line on another day: .*${daysAgo(2)}.*seen 2 times\\)\\. The earlier line "${report(daysAgo(3))}" is kept`,
        'su',
      ),
    )

    const third = await converse(
      "record tonight's backup report, then check the history",
      nightly(daysAgo(1)),
      search({ query: 'nightly backup' }),
      reply,
    )
    assert.match(third.toolResults[0] ?? '', /^outcome: saved\nFolded into #\d+, .*seen 3 times/su)
    const found = third.toolResults[1] ?? ''
    assert.match(found, /^outcome: ok\nmemory_search "nightly backup": 1 matching fact\./u)
    assert.match(
      found,
      new RegExp(
        `\\n1\\. backup-runner · last run: ${report(daysAgo(1))} \\[#${id} · since \\d{4}-\\d{2}-\\d{2} · observed · memory_write, session-[0-9a-f]{8} turn 1 · quote: "backup-runner: ${report(daysAgo(1))}" · seen 3 times\\]\\n`,
        'u',
      ),
    )
    assert.doesNotMatch(found, new RegExp(`${daysAgo(3)}|${daysAgo(2)}`, 'u'), 'one row, holding the newest line')
    assert.match(
      directoryOf(third.lastRequest),
      new RegExp(`- backup-runner · last run: ${report(daysAgo(1))} \\(\\d{4}-\\d{2}-\\d{2}, seen 3 times\\)`, 'u'),
    )
  })

  it('port 7801 and port 7802 stay two values, not one folded line', async () => {
    await converse(
      'note the listener',
      write({ subject: 'edge-proxy', property: 'listener', value: 'port 7801', evidence: 'observed' }),
      reply,
    )
    const moved = await converse(
      'note the listener',
      write({ subject: 'edge-proxy', property: 'listener', value: 'port 7802', evidence: 'observed' }),
      search({ query: 'edge-proxy listener' }),
      reply,
    )
    assert.match(
      moved.toolResults[0] ?? '',
      /^outcome: saved\nStored #\d+: .*It replaces port 7801 \(#\d+\), kept as history\./su,
    )
    assert.doesNotMatch(moved.toolResults[1] ?? '', /seen \d+ times/u)
  })
})
