/**
 * The settings card's embedding surface in Debian's Chromium against real DSH rc.8 web hosts: without an embedding
 * model there is no "Rebuild vectors" and no vector count; once one is configured (in the profile patch, or in the
 * card's own fields and saved) the button appears and the counts say how many facts have current vectors and how
 * many wait; the button sweeps them and the status line says what it did. The embedding endpoint is the local fake;
 * `vectorIndexIntervalMs: 0` keeps the timed and asked-for sweeps out of the way, so only the button sweeps.
 * Screenshots of the card (light and dark) land in test-artifacts/. Here the embedding model is configured in the
 * profile; page-vectors-card-browser.spec.ts configures it on the card.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { screenshot } from './helpers/browser.ts'
import { converse, writeCall } from './helpers/fact-memory-web.ts'
import { closeClean } from './helpers/page-host.ts'
import {
  lineBoxes,
  openCard,
  shoot,
  type Store,
  startStore,
  stopStore,
  WAITING,
  useVectorRig,
} from './helpers/vector-card.ts'

const started = useVectorRig()

describe('Rebuild vectors on the settings card, configured in the profile', () => {
  let store: Store | undefined
  before(async () => {
    const { semantic } = started()
    store = await startStore(started(), {
      embeddingSource: 'openai',
      embeddingBaseUrl: `${semantic.url}/v1`,
      embeddingModel: 'fake-embed-1',
      vectorIndexIntervalMs: 0,
    })
  })
  after(async () => {
    await stopStore(store)
  })

  it('the counts say how many facts wait for a vector, and Rebuild vectors gives them one and says so', async () => {
    const { semantic } = started()
    assert.equal(semantic.requests.length, 0, 'with the interval at 0 nothing sweeps before the button')
    const { opened, card } = await openCard(started(), store, 'light')
    const counts = card.locator('[data-fm="card-counts"]')
    await counts.filter({ hasText: /current vectors/u }).waitFor()
    assert.equal(await counts.innerText(), WAITING)
    assert.deepEqual(await lineBoxes(counts), [1, 1, 1, 1])
    const rebuild = card.locator('[data-fm="index-vectors"]')
    assert.equal(await rebuild.innerText(), 'Rebuild vectors')
    await shoot(card, 'settings-card-vectors-waiting-light')

    await rebuild.click()
    const status = card.locator('[data-fm="card-status"]')
    await status.filter({ hasText: /^Vectors:/u }).waitFor()
    assert.equal(await status.innerText(), 'Vectors: 2 facts embedded. 2 facts now have current vectors.')
    await counts.filter({ hasText: /· 2 facts with current vectors$/u }).waitFor()
    const sent = semantic.sentTexts().join('\n')
    assert.match(sent, /billing-api · port: 7801/u)
    assert.doesNotMatch(sent, /ops-oncall@example\.com/u)
    await shoot(card, 'settings-card-vectors-rebuilt-light')
    await closeClean(opened)

    const dark = await openCard(started(), store, 'dark')
    await dark.card
      .locator('[data-fm="card-counts"]')
      .filter({ hasText: /· 2 facts with current vectors$/u })
      .waitFor()
    await dark.card.locator('[data-fm="index-vectors"]').waitFor()
    await shoot(dark.card, 'settings-card-vectors-dark')
    await dark.card.locator('summary', { hasText: /^Advanced$/u }).click()
    await dark.card.locator('[data-field="vectorIndexIntervalMs"]').scrollIntoViewIfNeeded()
    await screenshot(dark.opened.page, 'settings-card-vectors-dark-advanced')
    await closeClean(dark.opened)
  })
  it('a failing endpoint: Rebuild vectors says why it stopped and the counts name the failed sweep', async () => {
    if (store === undefined) throw new Error('no host')
    const { semantic, model } = started()
    await converse(store.host.url, model, store.home.workspace, 'remember the pet', {
      toolCalls: [
        writeCall({ subject: 'user', property: 'pet', value: 'a dog named Miso', evidence: 'explicit_user' }),
      ],
    })
    semantic.script.embedStatus = 503
    semantic.script.errorBody = 'upstream overloaded'
    const { opened, card } = await openCard(started(), store, 'light')
    await card.locator('[data-fm="index-vectors"]').click()
    const status = card.locator('[data-fm="card-status"]')
    await status.filter({ hasText: /vector sweep stopped/u }).waitFor()
    assert.match(await status.innerText(), /503/u)
    await card
      .locator('[data-fm="vector-sweep-error"]')
      .filter({ hasText: /^The last vector sweep stopped: .*503/u })
      .waitFor()
    assert.match(
      await card.locator('[data-fm="card-counts"]').innerText(),
      /2 facts with current vectors \(1 waiting\)$/u,
    )
    const fits = await card.locator('[data-fm="vector-sweep-error"]').evaluate((element) => {
      const box = (element as unknown as { getBoundingClientRect(): { right: number } }).getBoundingClientRect()
      const host = (element as unknown as { getRootNode(): { host: { getBoundingClientRect(): { right: number } } } })
        .getRootNode()
        .host.getBoundingClientRect()
      return box.right <= host.right
    })
    assert.ok(fits, 'the reason wraps inside the card')
    await shoot(card, 'settings-card-vectors-failed-light')
    semantic.script.embedStatus = undefined
    semantic.script.errorBody = undefined
    await opened.close()
    // The refused verb is the one error the browser may log: its 409 answer.
    assert.deepEqual(opened.errors, ['Failed to load resource: the server responded with a status of 409 (Conflict)'])
  })
})
