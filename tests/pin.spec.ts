/**
 * Pins, through the real verb table and schemas on a real store (one binding): fact-pin behind the fence (a stale
 * generation refused, a replayed operation id answered once), its undo giving the row exactly the pin it had, what a
 * superseded or forgotten pinned fact does, the directory the model reads (the pinned fact leads, marked, byte-stable
 * while the store is unchanged and across a restart, within its budget however many pins), the exchange round trip
 * (and an older file without pins), and the model tools, which accept no pin field.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { ToolCall } from '../src/host/ports.ts'
import { memoryForgetTool } from '../src/tools/memory-forget.ts'
import { memorySearchTool } from '../src/tools/memory-search.ts'
import { memoryWriteTool } from '../src/tools/memory-write.ts'
import { FactMemory } from '../src/fact-memory.ts'
import type { FactView } from '../src/wire-types.ts'
import { expectKind, ONE_DRIVER, oneRow, write } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'
import { instantColumn } from '../src/store/fact-rows.ts'

const PINNED_MARK = ', pinned by the user)'

for (const driver of ONE_DRIVER) {
  describe(`fact-pin (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => {
      v.dispose()
    })

    const put = (partial: Parameters<typeof write>[2]) =>
      expectKind(write(v.h.memory, v.h.config, partial), 'saved').fact
    const directory = () => v.h.memory.directory(v.h.config, null)
    const pinnedAt = (id: number) =>
      oneRow(v.h.db(), `SELECT ${instantColumn('pinned_at')} FROM facts WHERE id = ?`, id)['pinned_at']
    /** Three facts; the oldest, weakest one is the one a user would pin to keep in view. */
    const seed = () => {
      const old = put({ subject: 'deploy', property: 'freeze', value: 'no deploys on Fridays', evidence: 'observed' })
      v.clock.advance(86_400_000)
      const editor = put({ subject: 'user', property: 'editor', value: 'helix' })
      const port = put({ subject: 'billing-api', property: 'port', value: '8123' })
      return { old, editor, port }
    }

    it('pins a current fact and unpins it, each a store change shown in the library', async () => {
      const { old } = seed()
      const before = v.generation()
      const pinned = await v.ok('fact-pin', { ...v.fence(), id: old.id, pinned: true })
      assert.deepEqual([pinned['pinned'], pinned['pinnedAt'], pinned['previousPinnedAt']], [true, v.clock.iso(), null])
      assert.equal(v.generation(), before + 1)
      assert.equal(pinnedAt(old.id), v.clock.iso())
      assert.equal(((await v.ok('fact', { id: old.id }))['fact'] as FactView).pinnedAt, v.clock.iso())
      const listed = (await v.ok('facts', {}))['facts'] as FactView[]
      assert.deepEqual(
        listed.filter((row) => row.pinnedAt !== null).map((row) => row.id),
        [old.id],
      )
      const unpinned = await v.ok('fact-pin', { ...v.fence(), id: old.id, pinned: false })
      assert.deepEqual([unpinned['pinned'], unpinned['previousPinnedAt']], [false, pinned['pinnedAt']])
      assert.equal(pinnedAt(old.id), null)
      assert.equal(v.generation(), before + 2)
    })

    it('refuses a stale generation and answers a replayed operation id once, changing nothing', async () => {
      const { old } = seed()
      const stale = await v.call('fact-pin', {
        expectedGeneration: v.generation() - 1,
        operationId: v.op(),
        id: old.id,
        pinned: true,
      })
      assert.equal(!stale.ok && stale.code, 'stale')
      assert.equal(!stale.ok && stale.details?.['generation'], v.generation())
      assert.equal(pinnedAt(old.id), null)
      const body = { ...v.fence(), id: old.id, pinned: true }
      const first = await v.ok('fact-pin', body)
      const generation = v.generation()
      v.clock.advance(60_000)
      const again = await v.ok('fact-pin', body)
      assert.deepEqual(
        [again['replayed'], again['pinnedAt'], again['generation']],
        [true, first['pinnedAt'], first['generation']],
      )
      assert.equal(v.generation(), generation)
      assert.equal(pinnedAt(old.id), first['pinnedAt'])
      const collision = await v.call('fact-pin', { ...body, pinned: false })
      assert.equal(!collision.ok && collision.code, 'operation_collision')
    })

    it('undoes a pin and an unpin exactly: the row and the directory come back byte for byte', async () => {
      const { old, editor } = seed()
      const unpinnedText = directory()
      const pin = await v.ok('fact-pin', { ...v.fence(), id: old.id, pinned: true })
      assert.notEqual(directory(), unpinnedText)
      const undone = await v.ok('fact-pin', { ...v.fence(), ...(pin['undo'] as object) })
      assert.equal(undone['pinned'], false)
      assert.equal(pinnedAt(old.id), null)
      assert.equal(directory(), unpinnedText)
      const twice = await v.call('fact-pin', { ...v.fence(), ...(pin['undo'] as object) })
      assert.match(!twice.ok ? twice.message : '', /changed since that operation \(or it was already undone\)/u)

      // Two pins, then the earlier one unpinned and put back: it keeps its instant, so it still leads the later one.
      await v.ok('fact-pin', { ...v.fence(), id: old.id, pinned: true })
      const first = pinnedAt(old.id)
      v.clock.advance(60_000)
      await v.ok('fact-pin', { ...v.fence(), id: editor.id, pinned: true })
      const bothText = directory()
      v.clock.advance(60_000)
      const unpin = await v.ok('fact-pin', { ...v.fence(), id: old.id, pinned: false })
      v.clock.advance(60_000)
      await v.ok('fact-pin', { ...v.fence(), ...(unpin['undo'] as object) })
      assert.equal(pinnedAt(old.id), first)
      assert.equal(directory(), bothText)
      const lines = bothText.split('\n')
      assert.ok(lines[1]?.includes('no deploys on Fridays') && lines[2]?.includes('helix'), bothText)
    })

    it("refuses what a pin cannot mean: a past value, a second pin, an unpin of an unpinned fact, another fact's undo", async () => {
      const { old, editor } = seed()
      const newer = put({ subject: 'user', property: 'editor', value: 'zed' })
      const past = await v.call('fact-pin', { ...v.fence(), id: editor.id, pinned: true })
      assert.match(!past.ok ? past.message : '', /is superseded; only a current fact can be pinned/u)
      await v.ok('fact-pin', { ...v.fence(), id: newer.id, pinned: true })
      const second = await v.call('fact-pin', { ...v.fence(), id: newer.id, pinned: true })
      assert.match(!second.ok ? second.message : '', /already pinned/u)
      const none = await v.call('fact-pin', { ...v.fence(), id: old.id, pinned: false })
      assert.match(!none.ok ? none.message : '', /is not pinned/u)
      const pin = await v.ok('fact-pin', { ...v.fence(), id: old.id, pinned: true })
      const wrong = await v.call('fact-pin', {
        ...v.fence(),
        id: newer.id,
        undoes: (pin['undo'] as { undoes: string }).undoes,
      })
      assert.match(!wrong.ok ? wrong.message : '', /about another fact/u)
      const unknown = await v.call('fact-pin', { ...v.fence(), id: old.id, undoes: 'op-never-used' })
      assert.equal(!unknown.ok && unknown.code, 'not_found')
      const both = await v.call('fact-pin', { ...v.fence(), id: old.id, pinned: true, undoes: 'op-never-used' })
      assert.equal(!both.ok && both.code, 'invalid_arguments')
      const missing = await v.call('fact-pin', { ...v.fence(), id: 999_999, pinned: true })
      assert.equal(!missing.ok && missing.code, 'not_found')
    })

    it('keeps a pin on its own row: a superseding value starts unpinned, and undoing the edit brings the pinned value back leading', async () => {
      const { editor } = seed()
      await v.ok('fact-pin', { ...v.fence(), id: editor.id, pinned: true })
      const pinnedText = directory()
      const edit = await v.ok('fact-update', { ...v.fence(), id: editor.id, value: 'zed' })
      const next = edit['fact'] as FactView
      assert.equal(next.pinnedAt, null)
      assert.notEqual(pinnedAt(editor.id), null, 'the old row keeps its pin, inert, in the history')
      assert.ok(!directory().includes(PINNED_MARK), directory())
      assert.match(directory(), /user · editor: zed \(\d{4}-\d{2}-\d{2}\)/u)
      // The user can clear the inert pin on the history row.
      const cleared = await v.ok('fact-pin', { ...v.fence(), id: editor.id, pinned: false })
      await v.ok('fact-pin', { ...v.fence(), ...(cleared['undo'] as object) })
      await v.ok('fact-restore', { ...v.fence(), editId: edit['editId'] })
      assert.equal(directory(), pinnedText)
    })

    it('drops a forgotten fact from the directory with its pin, and refuses to pin or unpin it', async () => {
      const { old } = seed()
      await v.ok('fact-pin', { ...v.fence(), id: old.id, pinned: true })
      v.h.memory.forgetById(old.id)
      assert.ok(!directory().includes('Fridays'), directory())
      const refused = await v.call('fact-pin', { ...v.fence(), id: old.id, pinned: false })
      assert.equal(!refused.ok && refused.code, 'not_found')
    })

    it('leads the directory with the pinned fact, marked, however old and weak; byte-stable across rebuilds and a restart', async () => {
      const { old } = seed()
      for (let index = 0; index < 30; index += 1)
        put({ subject: `service-${index}`, property: 'owner', value: `team ${index}` })
      await v.ok('fact-pin', { ...v.fence(), id: old.id, pinned: true })
      const text = directory()
      assert.match(
        text.split('\n')[1] ?? '',
        /^- deploy · freeze: no deploys on Fridays \(\d{4}-\d{2}-\d{2}, pinned by the user\)$/u,
      )
      assert.equal(text.split('\n').filter((line) => line.includes(PINNED_MARK)).length, 1)
      assert.equal(directory(), text)
      // A read-only verb and another connection's reads change nothing.
      await v.ok('facts', {})
      assert.equal(directory(), text)
      // A fresh FactMemory over the same file rebuilds the directory from the store: the same bytes.
      const generation = v.generation()
      v.h.memory.close()
      const reopened = new FactMemory({ clock: v.h.clock, driver })
      reopened.open(v.h.config.resolvedDataDir)
      try {
        assert.equal(reopened.status().generation, generation)
        assert.equal(reopened.directory(v.h.config, null), text)
      } finally {
        reopened.close()
        v.h.memory.open(v.h.config.resolvedDataDir)
      }
      assert.equal(directory(), text)
    })

    it('keeps a pinned fact the model may not read out of the directory', async () => {
      seed()
      const email = expectKind(
        write(v.h.memory, v.h.config, {
          subject: 'Priya',
          property: 'email',
          value: 'priya.raman@example.com',
          evidence: 'explicit_user',
        }),
        'saved',
      ).fact
      assert.equal(email.sensitivity, 'email')
      await v.ok('fact-pin', { ...v.fence(), id: email.id, pinned: true })
      assert.ok(!directory().includes('priya.raman@example.com'), directory())
      assert.ok(!directory().includes(PINNED_MARK), directory())
    })

    it('gives pinned facts the budget first and keeps the directory within it, however many pins', async () => {
      const strong: number[] = []
      for (let index = 0; index < 12; index += 1)
        strong.push(put({ subject: `service-${index}`, property: 'owner', value: `team ${index}` }).id)
      v.clock.advance(60_000)
      const pins: number[] = []
      for (let index = 0; index < 40; index += 1) {
        pins.push(
          put({
            subject: `runbook-${String(index).padStart(2, '0')}`,
            property: 'step',
            value: `step ${index} of the failover`,
            evidence: 'observed',
          }).id,
        )
      }
      for (const id of pins) {
        v.clock.advance(1000)
        await v.ok('fact-pin', { ...v.fence(), id, pinned: true })
      }
      const config = v.h.reconfigure({ directoryBudget: 300 })
      const text = v.h.memory.directory(config, null)
      assert.ok(text.length <= 600, `${text.length} characters`)
      const lines = text.split('\n')
      const listed = lines.slice(1, -1)
      assert.ok(listed.length >= 3, text)
      assert.ok(
        listed.every((line) => line.endsWith(PINNED_MARK)),
        'every line the budget holds is a pin',
      )
      assert.deepEqual(
        listed.map((line) => /runbook-(\d+)/u.exec(line)?.[1]),
        listed.map((_, index) => String(index).padStart(2, '0')),
        'the earliest pins are the ones kept',
      )
      assert.equal(lines.at(-1), `${12 + 40 - listed.length} more, use memory_search`)
      // With room to spare every pin is listed first, and the unpinned facts follow.
      const roomy = v.h.memory
        .directory(v.h.reconfigure({ directoryBudget: 4000 }), null)
        .split('\n')
        .slice(1)
      assert.equal(
        roomy.findIndex((line) => !line.endsWith(PINNED_MARK)),
        40,
      )
      assert.equal(roomy.length, 52)
    })

    it("carries pins through its own export, drops them from another store's file, and imports an older file unpinned", async () => {
      const { old, port } = seed()
      await v.ok('fact-pin', { ...v.fence(), id: old.id, pinned: true })
      const instant = pinnedAt(old.id)
      const exported = await v.ok('export', { backup: false })
      const content = readFileSync(String(exported['path']), 'utf8')
      const records = content
        .split('\n')
        .slice(1, -1)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      assert.deepEqual(
        records.filter((record) => 'pinnedAt' in record).map((record) => [record['value'], record['pinnedAt']]),
        [['no deploys on Fridays', instant]],
      )
      const elsewhere = verbHarness(driver)
      // The other store reads the file later, so no time in it lies ahead of its clock.
      elsewhere.clock.advance(2 * 86_400_000)
      try {
        // A pin is the user's act in their own store: another store's file brings the fact, not the pin.
        const seen = await elsewhere.ok('import', { mode: 'preview', content })
        assert.equal((seen['pinsDropped'] as { count: number }).count, 1)
        await elsewhere.ok('import', {
          mode: 'commit',
          content,
          token: seen['token'],
          expectedGeneration: elsewhere.generation(),
          operationId: elsewhere.op(),
        })
        assert.equal(
          oneRow(
            elsewhere.h.db(),
            `SELECT ${instantColumn('pinned_at')} FROM facts WHERE value = ?`,
            'no deploys on Fridays',
          )['pinned_at'],
          null,
        )
        assert.equal(oneRow(elsewhere.h.db(), 'SELECT count(*) AS n FROM facts WHERE pinned_at IS NOT NULL')['n'], 0)
        // A line written before pins existed: no pinnedAt field; it imports, unpinned.
        const older = `${JSON.stringify({ subject: 'ci', property: 'runner', value: 'buildkite' })}\n`
        const preview = await elsewhere.ok('import', { mode: 'preview', content: older })
        assert.equal((preview['counts'] as Record<string, number>)['new'], 1)
        await elsewhere.ok('import', {
          mode: 'commit',
          content: older,
          token: preview['token'],
          expectedGeneration: elsewhere.generation(),
          operationId: elsewhere.op(),
        })
        assert.equal(
          oneRow(elsewhere.h.db(), `SELECT ${instantColumn('pinned_at')} FROM facts WHERE value = ?`, 'buildkite')[
            'pinned_at'
          ],
          null,
        )
      } finally {
        elsewhere.dispose()
      }
      assert.equal(port.pinnedAt, null)
      // Its own export, restored after a wipe, keeps the pin and leads the directory as before.
      const before = directory().split('\n')[1]
      const wipe = await v.call('wipe', v.fence())
      await v.ok(
        'wipe',
        v.fence({ confirmToken: (!wipe.ok && (wipe.details as { confirmToken: string }).confirmToken) || '' }),
      )
      const restored = await v.ok('import', { mode: 'preview', content })
      assert.equal(restored['restore'], true)
      await v.ok('import', v.fence({ mode: 'commit', content, token: restored['token'] }))
      assert.equal(
        oneRow(v.h.db(), `SELECT ${instantColumn('pinned_at')} FROM facts WHERE value = ?`, 'no deploys on Fridays')[
          'pinned_at'
        ],
        instant,
      )
      assert.equal(directory().split('\n')[1], before)
    })

    it('offers the model no way to pin: every tool refuses a pin field, and its schema names none', async () => {
      const deps = { memory: v.h.memory, config: () => v.h.config }
      const call: ToolCall = { callId: 'call-1', signal: new AbortController().signal }
      const tools = [memoryWriteTool(deps), memorySearchTool(deps), memoryForgetTool(deps)]
      for (const tool of tools) {
        const parameters = tool.parameters as { properties?: Record<string, unknown>; additionalProperties?: unknown }
        assert.equal(parameters.additionalProperties, false, tool.name)
        assert.deepEqual(
          Object.keys(parameters.properties ?? {}).filter((key) => /pin/iu.test(key)),
          [],
          tool.name,
        )
      }
      const { old } = seed()
      for (const field of ['pinned', 'pin', 'pinned_at']) {
        const written = (await tools[0]!.execute(
          { subject: 'user', property: 'shell', value: 'fish', [field]: true },
          call,
        )) as { outcome: string; message: string }
        assert.equal(written.outcome, 'refused', field)
        assert.match(written.message, new RegExp(`unknown field "${field}"`, 'u'))
        const searched = (await tools[1]!.execute({ query: 'deploy', [field]: true }, call)) as {
          outcome: string
          message: string
        }
        assert.match(searched.message, new RegExp(`unknown field "${field}"`, 'u'))
        const forgot = (await tools[2]!.execute({ fact_id: old.id, [field]: false }, call)) as {
          outcome: string
          message: string
        }
        assert.notEqual(forgot.outcome, 'forgotten', field)
      }
      assert.equal(oneRow(v.h.db(), 'SELECT count(*) AS n FROM facts WHERE pinned_at IS NOT NULL')['n'], 0)
      assert.equal(oneRow(v.h.db(), 'SELECT count(*) AS n FROM facts WHERE value = ?', 'fish')['n'], 0)
    })
  })
}
