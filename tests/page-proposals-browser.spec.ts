/**
 * The proposals tab with one card of each kind that changes stored facts (merge, retire, fold, alias), queued
 * through the store's own creation functions on the store file of a real DSH rc.8 web host, in Debian's Chromium:
 * each card says in plain words what accepting it will do and which batch it is; a row can be struck, a stale row
 * is marked and skipped, and an accepted card's toast undoes it. Screenshots land in test-artifacts/.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { prepareWrite } from '../src/fact-input.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { Fact, FactRef } from '../src/types.ts'
import { screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { closeClean, startStoreHost, until, type StoreHost, openOnTab } from './helpers/page-host.ts'

let env: StoreHost | undefined
let host: WebHost
let browser: Browser
let api: FactMemoryApi
let stores: StoreSet

before(async () => {
  env = await startStoreHost()
  ;({ host, browser, api, stores } = env)
})

after(async () => {
  await env?.stop()
})

/** Write one fact into the host's store file, as the plugin would. */
function write(subject: string, property: string, value: string, quote?: string): Fact {
  const now = new Date().toISOString()
  const prepared = prepareWrite({ subject, property, value, quote, evidence: 'observed', origin: 'tool' }, now, {
    refuseCredentials: true,
    timeZone: 'UTC',
  })
  if (!prepared.ok) throw new Error(prepared.message)
  const written = stores.facts.write(prepared.write, now)
  if (written.kind !== 'saved' && written.kind !== 'duplicate') throw new Error(`write ${written.kind}`)
  return written.fact
}

const ref = (fact: Fact): FactRef => {
  const [current] = stores.facts.getFacts([fact.id])
  return { factId: fact.id, revision: current?.revision ?? fact.revision }
}

function openProposals(): Promise<HostPage> {
  return openOnTab({ browser, host }, 'proposals')
}

const card = (page: Page, id: number) => page.locator(`fm-proposals [data-fm="proposal"][data-id="${id}"]`)
const words = async (page: Page, id: number): Promise<string> =>
  card(page, id).locator('[data-fm="card-words"]').innerText()
const status = async (id: number): Promise<string> =>
  String(((await api.ok('fact', { id }))['fact'] as { status: string }).status)
/** The ids of every fact the entity verb lists under a subject. */
const factIdsOf = async (subject: string): Promise<number[]> =>
  ((await api.ok('entity', { subject }))['properties'] as { facts: { id: number }[] }[])
    .flatMap((entry) => entry.facts.map((fact) => fact.id))
    .sort((a, b) => a - b)

describe('the proposals tab shows what each review card will do', () => {
  it('says it in plain words with the batch, strikes a row, skips a stale one, and accepts and undoes from the toast', async () => {
    const keeper = write('billing-api', 'port', '7801')
    const loser = write('billing-api', 'listening port', '7801', 'it listens on 7801')
    write('billing-api', 'listening port', '7801', 'listening on 7801 now')
    const restating = ['deploy job', 'worker', 'cron', 'backup', 'indexer'].map((subject) =>
      write(subject, 'error', 'failed with an error message'),
    )
    const runs = ['01', '02', '03', '04', '05', '06', '07', '08'].map((day) =>
      write('nightly report', `2026-02-${day} result`, 'ok'),
    )
    const survivor = runs.at(-1)
    assert.ok(survivor !== undefined)
    const fragment = [
      ['owner', 'team payments'],
      ['region', 'eu-west'],
      ['tier', 'gold'],
      ['language', 'Go'],
    ].map(([property, value]) => write('billing', property ?? '', value ?? ''))
    const now = new Date().toISOString()
    const merge = stores.proposals.proposeMerges([{ keeper: ref(keeper), loser: ref(loser) }], now).cards[0]?.id ?? 0
    const retire = stores.proposals
      .proposeRetires(
        restating.map((fact) => ({ fact: ref(fact) })),
        now,
        3,
      )
      .cards.map((made) => made.id)
    const fold =
      stores.proposals.proposeFolds([{ survivor: ref(survivor), runs: runs.slice(0, -1).map(ref) }], now).cards[0]
        ?.id ?? 0
    const alias =
      stores.proposals.proposeAliases(
        [{ fragment: 'billing', canonical: 'billing api', facts: fragment.map(ref) }],
        now,
      ).cards[0]?.id ?? 0
    const [firstBatch, secondBatch] = retire
    assert.ok(firstBatch !== undefined && secondBatch !== undefined)

    const opened = await openProposals()
    const { page } = opened
    await card(page, alias).waitFor()
    assert.equal(await words(page, merge), `keep #${keeper.id}, retire #${loser.id}, move 2 sources`)
    assert.equal(await words(page, firstBatch), 'retire 3 facts that only restate their property')
    assert.equal(await words(page, secondBatch), 'retire 2 facts that only restate their property')
    assert.equal(await words(page, fold), `fold 7 runs into #${survivor.id}`)
    assert.equal(await words(page, alias), "treat 'billing' as 'billing-api' (4 facts move)")
    assert.deepEqual(
      await Promise.all([firstBatch, secondBatch].map((id) => card(page, id).locator('[data-fm="batch"]').innerText())),
      ['batch 1/2', 'batch 2/2'],
    )
    assert.equal(await card(page, merge).locator('[data-fm="batch"]').count(), 0)
    assert.match(
      await card(page, merge).innerText(),
      /#\d+ billing-api · port: 7801 ← #\d+ billing-api · listening port: 7801/u,
    )
    assert.match(await card(page, firstBatch).innerText(), /#\d+ deploy job · error: failed with an error message/u)
    assert.equal(
      await card(page, merge).getByRole('button', { name: 'Edit' }).count(),
      0,
      'a review card is accepted, struck or rejected, not edited',
    )
    await screenshot(page, 'proposals-review-kinds')
    await card(page, merge).scrollIntoViewIfNeeded()
    await screenshot(page, 'proposals-review-merge')

    // One false positive is struck before accepting; the card now retires two.
    await card(page, firstBatch).getByRole('button', { name: 'Strike this row' }).first().click()
    await until(
      async () => (await words(page, firstBatch)) === 'retire 2 facts that only restate their property',
      'the struck row',
    )

    // A fact edited since the sweep: its row is marked stale, and accepting skips it.
    stores.facts.expireFact(restating[4]?.id ?? 0, new Date().toISOString())
    await page.locator('fm-page nav button[data-tab="library"]').click()
    await page.locator('fm-page nav button[data-tab="proposals"]').click()
    await until(async () => (await card(page, secondBatch).locator('.row.stale').count()) === 1, 'the stale row')
    assert.match(await card(page, secondBatch).innerText(), /stale: the fact changed since, this row will be skipped/u)
    await screenshot(page, 'proposals-stale-row')
    await card(page, secondBatch).getByRole('button', { name: 'Accept' }).click()
    await page
      .locator('[data-fm="toast"]')
      .filter({
        hasText: `Accepted proposal #${secondBatch}: retire 2 facts that only restate their property (1 stale row skipped)`,
      })
      .waitFor()
    assert.deepEqual([await status(restating[3]?.id ?? 0), await status(restating[4]?.id ?? 0)], ['retired', 'expired'])

    await card(page, merge).getByRole('button', { name: 'Accept' }).click()
    await page
      .locator('[data-fm="toast"]')
      .filter({ hasText: `Accepted proposal #${merge}: keep #${keeper.id}, retire #${loser.id}, move 2 sources` })
      .waitFor()
    assert.equal(await status(loser.id), 'superseded')
    await card(page, fold).getByRole('button', { name: 'Accept' }).click()
    await page
      .locator('[data-fm="toast"]')
      .filter({ hasText: `Accepted proposal #${fold}: fold 7 runs into #${survivor.id}` })
      .waitFor()
    assert.deepEqual(await Promise.all(runs.map((run) => status(run.id))), [
      ...runs.slice(0, -1).map(() => 'superseded'),
      'active',
    ])

    await card(page, alias).getByRole('button', { name: 'Accept' }).click()
    const accepted = page
      .locator('[data-fm="toast"]')
      .filter({ hasText: `Accepted proposal #${alias}: treat 'billing' as 'billing-api' (4 facts move)` })
    await accepted.waitFor()
    await card(page, alias).waitFor({ state: 'detached' })
    const moved = await factIdsOf('billing-api')
    assert.ok(
      fragment.every((fact) => moved.includes(fact.id)),
      `${JSON.stringify(moved)} holds the fragment's facts`,
    )
    await screenshot(page, 'proposals-accepted-alias')
    await accepted.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Undone: the proposal is back in the queue' }).waitFor()
    await card(page, alias).waitFor()
    assert.deepEqual(
      await factIdsOf('billing'),
      fragment.map((fact) => fact.id),
    )
    assert.equal(await words(page, alias), "treat 'billing' as 'billing-api' (4 facts move)")
    assert.equal(await card(page, alias).locator('.row.stale').count(), 0, 'the card is back and can be accepted again')
    await screenshot(page, 'proposals-undone-alias')
    await closeClean(opened)
  })
})
