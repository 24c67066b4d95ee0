/**
 * The library as a Markdown document: the pure renderer (one section per subject, current values with dates and
 * evidence, conflicts and history beneath, sensitive values withheld unless asked, Markdown in values escaped), and
 * the export verb writing it atomically under exports/ on a real store (one binding), with bad input refused.
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, it } from 'node:test'
import { libraryMarkdown } from '../src/exchange/markdown.ts'
import type { Fact } from '../src/types.ts'
import { ONE_DRIVER } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const base: Fact = {
  id: 1 as Fact['id'],
  subject: 'billing-api',
  entityKey: 'billing-api',
  property: 'port',
  predicateKey: 'port',
  qualifiers: {},
  scope: 'global',
  projectName: null,
  value: '7801',
  slotKey: 's1',
  claimKey: 'c1',
  multi: false,
  status: 'active',
  evidence: 'explicit_user',
  confidence: 1,
  sensitivity: null,
  modelUseAllowed: true,
  observedAt: '2026-03-02T10:00:00.000Z',
  recordedAt: '2026-03-02T10:00:00.000Z',
  validFrom: '2026-03-02T10:00:00.000Z',
  validTo: null,
  supersededBy: null,
  conflictGroupId: null,
  revision: 1,
  origin: 'tool',
  sessionId: null,
  turn: null,
  quote: null,
  foldedCount: 0,
  foldedFrom: [],
  pinnedAt: null,
  cues: [],
}
const fact = (over: Partial<Fact>): Fact => ({ ...base, ...over })

describe('libraryMarkdown', () => {
  const options = { now: '2026-04-01T09:00:00.000Z', timeZone: 'UTC', includeSensitive: false }

  it('writes one section per subject, current values with their dates and evidence, history and conflicts beneath', () => {
    const doc = libraryMarkdown(
      [
        fact({
          id: 1 as Fact['id'],
          value: '7800',
          status: 'superseded',
          validTo: '2026-03-02T10:00:00.000Z',
          validFrom: '2026-02-01T00:00:00.000Z',
          evidence: 'observed',
        }),
        fact({ id: 2 as Fact['id'], pinnedAt: '2026-03-03T08:00:00.000Z' }),
        fact({
          id: 3 as Fact['id'],
          property: 'owner',
          slotKey: 's2',
          value: 'payments team',
          status: 'conflict',
          conflictGroupId: 7,
          evidence: 'observed',
        }),
        fact({
          id: 4 as Fact['id'],
          property: 'owner',
          slotKey: 's2',
          value: 'platform team',
          status: 'conflict',
          conflictGroupId: 7,
        }),
        fact({
          id: 5 as Fact['id'],
          subject: 'user',
          entityKey: 'user',
          property: 'hobbies',
          slotKey: 's3',
          multi: true,
          value: 'piano',
        }),
        fact({
          id: 6 as Fact['id'],
          subject: 'user',
          entityKey: 'user',
          property: 'hobbies',
          slotKey: 's3',
          multi: true,
          value: 'chess',
          evidence: 'observed',
        }),
      ],
      options,
    )
    assert.match(doc, /^# Fact memory\n/u)
    assert.match(doc, /6 facts about 2 subjects, exported 2026-04-01/u)
    const billing = doc.slice(doc.indexOf('## billing-api'), doc.indexOf('## user'))
    assert.match(billing, /- \*\*port\*\*: 7801 — since 2026-03-02, the user said it, pinned\n/u)
    assert.match(
      billing,
      /- \*\*owner\*\*: in conflict, for you to settle:\n {2}- payments team — since 2026-03-02, observed\n {2}- platform team — since 2026-03-02, the user said it/u,
    )
    assert.match(billing, /### History\n\n- \*\*port\*\*: 7800 — 2026-02-01 to 2026-03-02, observed \(superseded\)/u)
    assert.ok(doc.indexOf('## billing-api') < doc.indexOf('## user'), 'subjects in order')
    assert.match(
      doc,
      /- \*\*hobbies\*\*:\n {2}- chess — since 2026-03-02, observed\n {2}- piano — since 2026-03-02, the user said it/u,
    )
  })

  it('withholds sensitive values unless asked, and escapes Markdown in what it quotes', () => {
    const facts = [
      fact({ property: 'email', value: 'alice@example.com', sensitivity: 'email', modelUseAllowed: false }),
      fact({
        id: 2 as Fact['id'],
        property: 'motto',
        slotKey: 's2',
        value: '*bold* <script>x</script> | # not a heading\nsecond line',
      }),
      fact({
        id: 3 as Fact['id'],
        subject: '## 支付服务',
        entityKey: 'x',
        property: '端口',
        slotKey: 's3',
        value: '7801',
        scope: 'project:abc',
        projectName: 'shop',
      }),
    ]
    const withheld = libraryMarkdown(facts, options)
    assert.doesNotMatch(withheld, /alice@example\.com/u)
    assert.match(withheld, /- \*\*email\*\*: \(withheld: email\)/u)
    assert.match(withheld, /1 sensitive value withheld/u)
    assert.match(withheld, /\\\*bold\\\* &lt;script&gt;x&lt;\/script&gt; \\\| \\# not a heading second line/u)
    assert.match(withheld, /## \\#\\# 支付服务 \(project shop\)/u)
    const shown = libraryMarkdown(facts, { ...options, includeSensitive: true })
    assert.match(shown, /- \*\*email\*\*: alice@example\.com/u)
    assert.doesNotMatch(shown, /withheld/u)
  })

  it('says so when the library is empty', () => {
    assert.match(libraryMarkdown([], options), /No facts yet\./u)
  })
})

for (const driver of ONE_DRIVER) {
  describe(`export as Markdown (${driver})`, () => {
    let v: VerbHarness | undefined
    afterEach(() => {
      v?.dispose()
    })

    it('writes the document atomically under exports/, withholding sensitive values unless asked', async () => {
      v = verbHarness(driver)
      v.h.memory.write(
        {
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
          origin: 'tool',
          quote: 'billing-api runs on port 7801',
        },
        v.h.config,
      )
      v.h.memory.write(
        {
          subject: 'user',
          property: 'email',
          value: 'alice@example.com',
          evidence: 'explicit_user',
          origin: 'tool',
          quote: 'my email is alice@example.com',
        },
        v.h.config,
      )
      const answer = await v.ok('export', { format: 'markdown' })
      assert.match(String(answer['relativePath']), /^exports\/library-.*\.md$/u)
      assert.deepEqual(
        [answer['format'], answer['facts'], answer['subjects'], answer['withheld']],
        ['markdown', 2, 2, 1],
      )
      const text = readFileSync(String(answer['path']), 'utf8')
      assert.match(text, /## billing-api\n\n- \*\*port\*\*: 7801/u)
      assert.doesNotMatch(text, /alice@example\.com/u)
      const dir = join(v.h.dataDir, 'exports')
      assert.deepEqual(
        readdirSync(dir).filter((name) => name.endsWith('.tmp')),
        [],
        'no temp file left',
      )
      const full = await v.ok('export', { format: 'markdown', includeSensitive: true })
      assert.notEqual(full['relativePath'], answer['relativePath'])
      assert.match(readFileSync(String(full['path']), 'utf8'), /alice@example\.com/u)
      assert.ok(existsSync(String(answer['path'])))
    })

    it('refuses includeSensitive without the Markdown format, and an unknown format', async () => {
      v = verbHarness(driver)
      for (const body of [{ includeSensitive: true }, { format: 'jsonl', includeSensitive: true }, { format: 'pdf' }]) {
        const outcome = await v.call('export', body)
        assert.equal(!outcome.ok && outcome.code, 'invalid_arguments', JSON.stringify(body))
      }
      const jsonl = await v.ok('export', { format: 'jsonl' })
      assert.match(String(jsonl['relativePath']), /\.jsonl$/u)
    })
  })
}
