/**
 * Import and export over real HTTP, against one DSH rc.8 web host with the plugin linked: a file's tombstone forgets
 * the current claim it names, with Undo through fact-restore; a pin from a foreign file is dropped and the preview
 * says so; the manifest hashes fact records apart from alias and tombstone lines; and a large file is capped in
 * words, counts its repeated lines apart, and leaves status answering while it is previewed and committed (writes are
 * refused as busy meanwhile), and a commit's Undo takes the whole import back.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { startApiHost, type ApiHost } from './helpers/page-host.ts'

let env: ApiHost | undefined
let api: FactMemoryApi

interface FactView {
  readonly id: number
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly status: string
  readonly pinnedAt: string | null
}

before(async () => {
  env = await startApiHost()
  api = env.api
})

after(async () => {
  await env?.stop()
})

const current = async (): Promise<FactView[]> =>
  (await api.ok('facts', { status: 'current', limit: 100 }))['facts'] as FactView[]
const add = async (subject: string, property: string, value: string): Promise<FactView> =>
  (await api.ok('fact-add', await api.fence({ subject, property, value })))['fact'] as FactView
const exportFile = async (): Promise<{ relativePath: string; text: string }> => {
  const answer = await api.ok('export', { backup: false })
  return { relativePath: String(answer['relativePath']), text: readFileSync(String(answer['path']), 'utf8') }
}
const importAll = async (
  source: { path: string } | { content: string },
): Promise<{ preview: Record<string, unknown>; commit: Record<string, unknown> }> => {
  const preview = await api.ok('import', { mode: 'preview', ...source })
  const commit = await api.ok('import', {
    mode: 'commit',
    ...source,
    token: String(preview['token']),
    ...(await api.fence()),
  })
  return { preview, commit }
}
const sha = (lines: readonly string[]): string =>
  createHash('sha256')
    .update(lines.map((line) => `${line}\n`).join(''), 'utf8')
    .digest('hex')

describe('import and export over HTTP', () => {
  it('forgets a current fact whose claim the file forgets, and fact-restore brings it back', async () => {
    const fact = await add('lighthouse', 'keeper', 'Ada')
    const forgot = await api.ok('fact-forget', await api.fence({ id: fact.id }))
    const withTombstone = await exportFile()
    await api.ok('fact-restore', await api.fence({ editId: (forgot['undo'] as { editId: number }).editId }))
    assert.ok(
      (await current()).some((row) => row.id === fact.id),
      'the undo of the forget made the fact current again',
    )

    const { preview, commit } = await importAll({ path: withTombstone.relativePath })
    assert.deepEqual(
      (preview['tombstones'] as { forgets: FactView[] }).forgets.map((row) => row.id),
      [fact.id],
    )
    assert.deepEqual(
      (commit['forgotten'] as FactView[]).map((row) => row.id),
      [fact.id],
    )
    assert.ok(!(await current()).some((row) => row.id === fact.id), 'the imported tombstone forgot the fact')
    const rewrite = await api.post(
      'fact-add',
      await api.fence({ subject: 'lighthouse', property: 'keeper', value: 'Ada' }),
    )
    assert.equal(rewrite.status, 422, 'a rewrite is refused, as for any forgotten claim')

    await api.ok('fact-restore', await api.fence({ editId: (commit['undo'] as { editId: number }).editId }))
    assert.ok(
      (await current()).some((row) => row.id === fact.id),
      'Undo puts the fact back',
    )
    const again = await api.post(
      'fact-add',
      await api.fence({ subject: 'lighthouse', property: 'keeper', value: 'Ada' }),
    )
    assert.equal(again.json?.['outcome'], 'duplicate', 'and its claim may be written again')
  })

  it('drops a pin from a file this store did not export, and the preview says which line lost it', async () => {
    const content = `${JSON.stringify({ subject: 'orchard', property: 'harvest month', value: 'October', pinnedAt: '2026-01-05T10:00:00.000Z' })}\n`
    const { preview } = await importAll({ content })
    assert.deepEqual((preview['pinsDropped'] as { count: number; lines: number[] }).lines, [1])
    const orchard = (await current()).find((row) => row.subject === 'orchard')
    assert.equal(orchard?.pinnedAt, null)
  })

  it('hashes only the fact lines as records_sha256, with the tombstone lines counted and hashed apart', async () => {
    const gone = await add('bakery', 'oven', 'wood-fired')
    await api.ok('fact-forget', await api.fence({ id: gone.id }))
    const { text } = await exportFile()
    const [first, ...lines] = text.slice(0, -1).split('\n')
    const manifest = JSON.parse(first ?? '') as Record<string, unknown>
    const facts = lines.filter((line) => !line.includes('"tombstone"') && !line.includes('"aliasOf"'))
    const tombstones = lines.filter((line) => line.includes('"tombstone"'))
    assert.ok(tombstones.length > 0)
    assert.deepEqual([manifest['records'], manifest['records_sha256']], [facts.length, sha(facts)])
    assert.deepEqual([manifest['tombstones'], manifest['tombstones_sha256']], [tombstones.length, sha(tombstones)])
  })

  it('refuses a file above 16 MB with its size in words, and counts lines repeated within a file apart', async () => {
    const line = `${JSON.stringify({ subject: 'padding', property: 'note', value: 'x'.repeat(1000) })}\n`
    const big = await api.post('import', {
      mode: 'preview',
      content: line.repeat(Math.ceil((16.5 * 1024 * 1024) / line.length)),
    })
    assert.equal(big.status, 422)
    assert.match(
      String((big.json?.['error'] as { message: string }).message),
      /the file is 16\.5 MB; imports take up to 16 MB/u,
    )
    const twice = `${JSON.stringify({ subject: 'bakery', property: 'opening hour', value: '7am' })}\n`.repeat(2)
    const { commit } = await importAll({ content: twice })
    assert.deepEqual(commit['counts'], { new: 1, duplicate: 0, repeated: 1, conflict: 0, tombstoned: 0, invalid: 0 })
  })

  it('answers status while a large file is previewed', async () => {
    const content = Array.from(
      { length: 20_000 },
      (_, i) =>
        `${JSON.stringify({ subject: `host-${i % 500}`, property: `port ${Math.floor(i / 500)}`, value: String(7000 + i) })}\n`,
    ).join('')
    let previewDone = false
    const preview = api.ok('import', { mode: 'preview', content }).then((answer) => {
      previewDone = true
      return answer
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await api.ok('status', { summary: true })
    assert.equal(previewDone, false, 'status answered while the preview was still running')
    assert.equal(((await preview)['counts'] as { new: number }).new, 20_000)
  })

  it('answers reads and refuses writes with 503 while a large file is committed, and Undo takes the import back', async () => {
    const content = Array.from(
      { length: 3000 },
      (_, i) =>
        `${JSON.stringify({ subject: `relay-${i % 300}`, property: `slot ${Math.floor(i / 300)}`, value: String(9000 + i) })}\n`,
    ).join('')
    const preview = await api.ok('import', { mode: 'preview', content })
    let commitDone = false
    const commit = api
      .ok('import', { mode: 'commit', content, token: String(preview['token']), ...(await api.fence()) })
      .then((answer) => {
        commitDone = true
        return answer
      })
    // review-seen writes bookkeeping only, so the tries before the commit holds the store do not make its token stale.
    let refused: { status: number; json?: Record<string, unknown> | undefined } | undefined
    for (let attempt = 0; attempt < 500 && !commitDone && refused === undefined; attempt += 1) {
      const tried = await api.post('review-seen', {})
      if (tried.status === 503) refused = tried
      else assert.equal(tried.status, 200)
    }
    assert.ok(
      refused !== undefined && !commitDone,
      'a write made during the commit was refused before the commit ended',
    )
    assert.equal((refused.json?.['error'] as { code: string }).code, 'busy')
    assert.match(
      (refused.json?.['error'] as { message: string }).message,
      /taking in a large import; nothing was changed/u,
    )
    const added = await api.post('fact-add', await api.fence({ subject: 'pager', property: 'rota', value: 'weekly' }))
    assert.equal(added.status, 503, 'a fact added from the page meanwhile is refused too')
    await api.ok('status', { summary: true })
    assert.equal(commitDone, false, 'status answered while the commit was still running')
    const answer = await commit
    assert.equal((answer['counts'] as { new: number }).new, 3000)
    await api.ok('fact-restore', await api.fence({ editId: (answer['undo'] as { editId: number }).editId }))
    assert.ok(!(await current()).some((row) => row.subject.startsWith('relay-')), 'Undo took every imported fact back')
  })
})
