/**
 * The settings card's embedding surface configured on the card itself, in Debian's Chromium against a real DSH rc.8
 * web host: without an embedding model there is no "Rebuild vectors" and no vector count, and saving a base URL and
 * a model brings both at once. Split from page-vectors-browser.spec.ts (which configures them in the profile) so the
 * two run side by side; the card's helpers are tests/helpers/vector-card.ts.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { closeClean } from './helpers/page-host.ts'
import {
  enter,
  openCard,
  shoot,
  type Store,
  startStore,
  stopStore,
  WAITING,
  useVectorRig,
} from './helpers/vector-card.ts'

const started = useVectorRig()

describe('Rebuild vectors on the settings card, configured on the card', () => {
  let store: Store | undefined
  before(async () => {
    started().semantic.reset()
    store = await startStore(started(), { vectorIndexIntervalMs: 0 })
  })
  after(async () => {
    await stopStore(store)
  })

  it('without an embedding model there is no Rebuild vectors and no vector count', async () => {
    const { opened, card } = await openCard(started(), store, 'light')
    assert.equal(
      await card.locator('[data-fm="card-counts"]').innerText(),
      '3 current facts · 0 pending proposals · 0 open conflicts',
    )
    assert.equal(await card.locator('[data-fm="index-vectors"]').count(), 0)
    assert.equal(await card.getByRole('button', { name: 'Rebuild vectors' }).count(), 0)
    // A source alone, without a URL and a model, configures nothing: still no button.
    await card.locator('#fm-setting-embeddingSource').selectOption('openai')
    await card.locator('[data-fm="card-save"]').first().getByRole('button', { name: 'Save' }).click()
    await card.locator('[data-fm="card-status"]').filter({ hasText: 'Saved Embedding source' }).waitFor()
    assert.equal(await card.locator('[data-fm="index-vectors"]').count(), 0)
    assert.doesNotMatch(await card.locator('[data-fm="card-counts"]').innerText(), /vector/u)
    await shoot(card, 'settings-card-no-embeddings-light')
    assert.equal(started().semantic.requests.length, 0, 'nothing was sent to the embedding endpoint')
    await closeClean(opened)
  })

  it('saving a base URL and a model brings Rebuild vectors and the vector count at once', async () => {
    const { semantic } = started()
    const { opened, card } = await openCard(started(), store, 'light')
    await enter(card, 'embeddingBaseUrl', `${semantic.url}/v1`)
    await enter(card, 'embeddingModel', 'fake-embed-1')
    await card.locator('[data-fm="card-save"]').first().getByRole('button', { name: 'Save' }).click()
    await card
      .locator('[data-fm="card-status"]')
      .filter({ hasText: /^Saved Embedding base URL, Embedding model$/u })
      .waitFor()
    const counts = card.locator('[data-fm="card-counts"]')
    await counts.filter({ hasText: /current vectors/u }).waitFor()
    assert.equal(await counts.innerText(), WAITING)
    await card.locator('[data-fm="index-vectors"]').click()
    await card
      .locator('[data-fm="card-status"]')
      .filter({ hasText: 'Vectors: 2 facts embedded. 2 facts now have current vectors.' })
      .waitFor()
    await counts.filter({ hasText: /· 2 facts with current vectors$/u }).waitFor()
    await closeClean(opened)
  })
})
