/**
 * The README and the docs pages as written: every import body docs/api.md's Exchange notes document, filled in field
 * by field and sent through the real verb table and schemas on a real store (both drivers); the operationId rule it
 * states, checked against the schema's bounds; the weight of the browser half docs/page.md states; the README's
 * rebuild command; and the first-run host dialogs its Quick start lists, walked in a real Chromium on a fresh DSH
 * home of the real web host without a model key.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { REPO_ROOT } from '../scripts/dsh-profile.ts'
import { bindingAdvice, probeBinding } from '../scripts/native-binding.ts'
import { launchBrowser, screenshot } from './helpers/browser.ts'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { FakeModel } from './helpers/fake-model.ts'
import { DRIVERS, tempDir } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
/** The management API's page, where the README's Management API section moved. */
const API_PAGE = readFileSync(join(REPO_ROOT, 'docs/api.md'), 'utf8')
/** The page tour, which states the weight of the browser half. */
const PAGE_TOUR = readFileSync(join(REPO_ROOT, 'docs/page.md'), 'utf8')

/** A second-level section of a Markdown text (the README unless told), up to the next one. */
function section(heading: string, text = README, file = 'README.md'): string {
  const start = text.indexOf(`\n## ${heading}\n`)
  assert.notEqual(start, -1, `${file} has no "${heading}" section`)
  const end = text.indexOf('\n## ', start + 1)
  return text.slice(start, end === -1 ? undefined : end)
}

/** The management API's page as a whole: its verb table, exchange notes and fenced edits. */
function managementSection(): string {
  return API_PAGE
}

/** One field of a documented body: `name`, `name?`, `a | b` (one of them) or `name: "literal"`. */
interface DocumentedField {
  readonly names: readonly string[]
  readonly literal?: string
  readonly optional: boolean
}

/**
 * Read the API page's body notation, e.g. `{mode: "commit", path | content, token}`.
 * @param shape - the braces and what they hold.
 * @returns its fields.
 */
function parseShape(shape: string): DocumentedField[] {
  return shape
    .replace(/^\{|\}$/gu, '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const literal = /^(\w+): "([^"]*)"$/u.exec(part)
      if (literal !== null) return { names: [literal[1] ?? ''], literal: literal[2] ?? '', optional: false }
      const optional = part.endsWith('?')
      return {
        names: part
          .replace(/\?$/u, '')
          .split('|')
          .map((name) => name.trim()),
        optional,
      }
    })
}

/** Every way to write a body of this shape: one name from each `a | b`, optional fields left out. */
function variants(fields: readonly DocumentedField[]): { name: string; literal?: string }[][] {
  return fields
    .filter((field) => !field.optional)
    .reduce<{ name: string; literal?: string }[][]>(
      (bodies, field) =>
        bodies.flatMap((body) =>
          field.names.map((name) => [
            ...body,
            field.literal === undefined ? { name } : { name, literal: field.literal },
          ]),
        ),
      [[]],
    )
}

/** The import bodies the section documents, by mode. */
function documentedImports(): Map<string, DocumentedField[]> {
  const shapes = new Map<string, DocumentedField[]>()
  for (const match of managementSection().matchAll(/`import (\{[^`]*\})`/gu)) {
    const fields = parseShape(match[1] ?? '')
    const mode = fields.find((field) => field.names[0] === 'mode')?.literal
    assert.ok(mode !== undefined, `an import body without a mode: ${match[0]}`)
    shapes.set(mode, fields)
  }
  return shapes
}

/** A file from elsewhere, one fact per line, as a newcomer would write one. */
const FOREIGN = `${JSON.stringify({ subject: 'build server', property: 'region', value: 'eu-west-1' })}\n`
const FOREIGN_PATH = 'imports/servers.jsonl'

/** What the test puts in each documented field; a field it cannot fill fails the test. */
function fill(harness: VerbHarness, name: string, token: string | undefined): unknown {
  switch (name) {
    case 'path':
      return FOREIGN_PATH
    case 'content':
      return FOREIGN
    case 'token':
      return token
    case 'expectedGeneration':
      return harness.generation()
    case 'operationId':
      return harness.op()
    default:
      throw new Error(`docs/api.md documents an import field this test cannot fill: ${name}`)
  }
}

function body(
  harness: VerbHarness,
  fields: readonly { name: string; literal?: string }[],
  token?: string,
): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field.name, field.literal ?? fill(harness, field.name, token)]))
}

for (const driver of DRIVERS) {
  describe(`docs/api.md's import bodies as written (${driver})`, () => {
    it('documents a preview and a commit, and the real verb accepts every way the page allows to write each', async () => {
      const shapes = documentedImports()
      assert.deepEqual([...shapes.keys()].sort(), ['commit', 'preview'])
      for (const preview of variants(shapes.get('preview') ?? [])) {
        for (const commit of variants(shapes.get('commit') ?? [])) {
          const harness = verbHarness(driver)
          try {
            mkdirSync(join(harness.h.dataDir, 'imports'), { recursive: true })
            writeFileSync(join(harness.h.dataDir, FOREIGN_PATH), FOREIGN)
            const previewed = await harness.ok('import', body(harness, preview))
            const token = String(previewed['token'])
            const label = `preview ${JSON.stringify(preview.map((field) => field.name))}, commit ${JSON.stringify(commit.map((field) => field.name))}`
            const outcome = await harness.call('import', body(harness, commit, token))
            assert.equal(outcome.ok, true, `${label}: ${outcome.ok ? '' : `${outcome.code} ${outcome.message}`}`)
            assert.equal(harness.h.memory.status().counts?.byStatus['active'], 1, label)
          } finally {
            harness.dispose()
          }
        }
      }
    })
  })
}

for (const driver of DRIVERS) {
  describe(`docs/api.md's hand-written import file (${driver})`, () => {
    it('previews its example lines as new facts, and commits them with the evidence it says', async () => {
      const exchange = managementSection()
      const start = exchange.indexOf('**A hand-written file.**')
      assert.notEqual(start, -1, 'docs/api.md documents a hand-written file')
      const block = /```json\n([\s\S]*?)\n\s*```/u.exec(exchange.slice(start))?.[1]
      assert.ok(block !== undefined, 'with an example')
      const content = block
        .split('\n')
        .map((line) => line.trim())
        .join('\n')
      const harness = verbHarness(driver)
      try {
        const previewed = await harness.ok('import', { mode: 'preview', content })
        const counts = previewed['counts'] as Record<string, number>
        assert.equal(counts['new'], content.split('\n').length, JSON.stringify(previewed))
        await harness.ok('import', {
          mode: 'commit',
          content,
          token: previewed['token'],
          expectedGeneration: harness.generation(),
          operationId: harness.op(),
        })
        const facts = (await harness.ok('facts', {}))['facts'] as {
          subject: string
          evidence: string
          multi: boolean
        }[]
        assert.deepEqual(
          facts.map((fact) => fact.evidence),
          facts.map(() => 'observed'),
          "a file's word counts as observed",
        )
        assert.ok(
          facts.some((fact) => fact.multi),
          'multi is read',
        )
      } finally {
        harness.dispose()
      }
    })

    it('refuses the lines it says are invalid: a bare number as value, confidence below 0.6, a withheld value', async () => {
      const exchange = managementSection()
      assert.match(exchange, /a bare number `7801` makes the line invalid/u)
      assert.match(exchange, /a line below 0\.6 is invalid/u)
      assert.match(exchange, /importing that line is refused as invalid/u)
      const content = [
        { subject: 'billing-api', property: 'port', value: 7801 },
        { subject: 'billing-api', property: 'owner', value: 'payments', confidence: 0.5 },
        { subject: 'billing-api', property: 'token', valueWithheld: true },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n')
      const harness = verbHarness(driver)
      try {
        const previewed = await harness.ok('import', { mode: 'preview', content })
        const invalid = previewed['invalid'] as { line: number; reason: string }[]
        assert.deepEqual(
          invalid.map((entry) => entry.line),
          [1, 2, 3],
          JSON.stringify(previewed),
        )
        assert.match(invalid[1]?.reason ?? '', /proposal/u)
      } finally {
        harness.dispose()
      }
    })
  })
}

describe("docs/api.md's operationId rule", () => {
  it('states the bounds and characters the fenced verbs enforce', async () => {
    const rule = /`operationId`[^.]*?(\d+) to (\d+) characters from `([^`]+)`/u.exec(managementSection())
    assert.ok(rule !== null, 'docs/api.md does not say how long an operationId is and what it may contain')
    const [min, max] = [Number(rule[1]), Number(rule[2])]
    const harness = verbHarness(DRIVERS[0])
    try {
      const fenced = (operationId: string) =>
        harness.call('rebuild', { expectedGeneration: harness.generation(), operationId })
      // Every single character the page lists besides the letter and digit ranges, in one id.
      const punctuation = (rule[3] ?? '')
        .split(' ')
        .filter((token) => token.length === 1)
        .join('')
      for (const id of [
        'a'.repeat(min),
        `${punctuation}${'b'.repeat(Math.max(0, min - punctuation.length))}`,
        'c'.repeat(max),
      ]) {
        const outcome = await fenced(id)
        assert.equal(outcome.ok, true, `${id}: ${outcome.ok ? '' : outcome.message}`)
      }
      for (const id of ['d'.repeat(min - 1), 'e'.repeat(max + 1), `${'f'.repeat(min)} g`, `${'h'.repeat(min)}/i`]) {
        const outcome = await fenced(id)
        assert.equal(outcome.ok ? 'accepted' : outcome.code, 'invalid_arguments', id)
      }
    } finally {
      harness.dispose()
    }
  })
})

describe("docs/page.md's weight of the browser half", () => {
  it("states each built file's size, minified and gzipped, within a tenth of what the build wrote", () => {
    const weight = section('Weight of the browser half', PAGE_TOUR, 'docs/page.md')
    for (const file of ['lib/client.js', 'lib/client/nebula.js']) {
      const stated = new RegExp(
        `\`${file.replace(/[./]/gu, '\\$&')}\`[\\s\\S]*?about\\s+(\\d+) KiB minified, (\\d+) KiB gzipped`,
        'u',
      ).exec(weight)
      assert.ok(stated !== null, `the Weight note states no size for ${file}`)
      const bytes = readFileSync(join(REPO_ROOT, file))
      const actual = [bytes.byteLength / 1024, gzipSync(bytes).byteLength / 1024]
      actual.forEach((kib, index) => {
        const said = Number(stated[index + 1])
        assert.ok(
          Math.abs(said - kib) <= kib / 10,
          `${file}: docs/page.md says ${said} KiB ${index === 0 ? 'minified' : 'gzipped'}, the build wrote ${kib.toFixed(1)}`,
        )
      })
    }
  })
})

describe("the README's rebuild of better-sqlite3 for the running Node", () => {
  it('sets the nodedir the install check names, and runs the rebuild it prints', () => {
    const block = /```sh\n(export npm_config_nodedir=[^\n]*)\n([^\n]*)\n```/u.exec(
      section('Install into a DSH profile'),
    )
    assert.ok(block !== null, 'the Install section has no nodedir block')
    const [, exportLine = '', rebuild = ''] = block
    const shell = spawnSync('bash', ['-c', `${exportLine}\nprintf %s "$npm_config_nodedir"`], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` },
    })
    const probe = probeBinding()
    assert.equal(shell.stdout, probe.node.folder)
    const advice = bindingAdvice(
      { ok: false, node: probe.node, failure: { kind: 'abi', builtFor: '115', message: '' } },
      '/usr',
      process.execPath,
    )
    assert.ok(
      advice.includes(`    npm_config_nodedir=${probe.node.folder} ${rebuild}`),
      `${rebuild} is not what the check prints:\n${advice.join('\n')}`,
    )
  })
})

/** One first-run dialog as the README lists it: `N. **Title** … **Button** …`, the first button being the one to click. */
interface DocumentedDialog {
  readonly title: string
  readonly buttons: readonly string[]
  /** Whether the README says it shows once per DSH home (otherwise on every load until dealt with). */
  readonly once: boolean
}

/** The numbered dialog list of the README's Quick start; an item runs on over its indented lines. */
function documentedDialogs(): DocumentedDialog[] {
  const items: string[] = []
  let open = false
  for (const line of section('Quick start').split('\n')) {
    if (/^\d+\. \*\*/u.test(line)) items.push(line)
    else if (open && /^ {3}\S/u.test(line)) items[items.length - 1] += ` ${line.trim()}`
    else {
      open = false
      continue
    }
    open = true
  }
  return items.map((item) => {
    const bold = [...item.matchAll(/\*\*([^*]+)\*\*/gu)].map((match) => match[1] ?? '')
    return { title: bold[0] ?? '', buttons: bold.slice(1), once: /once per DSH home/u.test(item) }
  })
}

/** Wait for the dialog with this title; it comes after the one before it closes. */
async function dialogTitled(page: Page, title: string): Promise<ReturnType<Page['getByRole']>> {
  const dialog = page.getByRole('dialog').filter({ hasText: title })
  await dialog.waitFor({ state: 'visible', timeout: 30_000 })
  return dialog
}

describe("the README's first run of npm start, on a fresh DSH home without a model key", () => {
  let model: FakeModel
  let home: DshHome
  let host: WebHost
  let browser: Browser

  before(async () => {
    model = await FakeModel.start()
    // A home at a root of its own, as npm start makes one: it shows the host's first-run notice (a throwaway home
    // starts past it). No key, as for a newcomer who has not set DEEPSEEK_API_KEY; the fake model is never called.
    home = createDshHome(tempDir('fact-memory-dsh-'))
    host = await startWebHost(home, model.url, { DEEPSEEK_API_KEY: '' })
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await host?.stop()
    await model?.close()
    home?.remove()
  })

  it('shows the dialogs the README lists, in its order, and its buttons lead to the Fact memory page', async () => {
    const dialogs = documentedDialogs()
    assert.ok(dialogs.length >= 2, `the README lists ${dialogs.length} first-run dialogs`)
    const context = await browser.newContext({ viewport: { width: 1440, height: 960 } })
    try {
      const page = await context.newPage()
      await page.goto(host.url, { waitUntil: 'domcontentloaded' })
      for (const [index, documented] of dialogs.entries()) {
        const dialog = await dialogTitled(page, documented.title)
        await screenshot(page, `readme-first-run-${index + 1}`)
        for (const button of documented.buttons) {
          assert.equal(
            await dialog.getByRole('button', { name: button, exact: true }).count(),
            1,
            `${documented.title}: no ${button} button`,
          )
        }
        await dialog.getByRole('button', { name: documented.buttons[0] ?? '', exact: true }).click()
        await dialog.waitFor({ state: 'detached', timeout: 10_000 })
      }
      // An inert sidebar (a dialog the README does not list) would make this click time out.
      await page.locator('[data-fm="sidebar-entry"]').click({ timeout: 15_000 })
      await page.locator('fm-page').waitFor({ timeout: 15_000 })

      await page.reload({ waitUntil: 'domcontentloaded' })
      const again = dialogs.filter((documented) => !documented.once)
      assert.ok(
        again.length > 0 && again.length < dialogs.length,
        'the README says which dialogs come back on the next load',
      )
      await dialogTitled(page, again[0]?.title ?? '')
      for (const documented of dialogs.filter((entry) => entry.once)) {
        assert.equal(
          await page.getByRole('dialog').filter({ hasText: documented.title }).count(),
          0,
          `${documented.title} came back`,
        )
      }
    } finally {
      await context.close()
    }
  })
})
