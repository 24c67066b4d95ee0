/**
 * indexForm gives a search term the form the full-text index holds: the test asks FTS5 itself (the facts_fts
 * tokenizer, porter unicode61 remove_diacritics 2, on each SQLite binding) what it stores for Porter's own examples,
 * the words of the near-duplicate pair set and words with diacritics, digits and CJK bigrams, and compares.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Database } from '../src/store/database.ts'
import { indexForm, porterStem } from '../src/text/porter.ts'
import { searchTerms } from '../src/text/tokenize.ts'
import { DRIVERS, removeDir, tempDir } from './helpers/store.ts'

/** Porter's examples for every step, and words that reach its edge cases. */
const PORTER_WORDS = [
  'caresses',
  'ponies',
  'ties',
  'ies',
  'sses',
  'caress',
  'cats',
  'feed',
  'agreed',
  'plastered',
  'bled',
  'motoring',
  'sing',
  'conflated',
  'troubled',
  'sized',
  'hopping',
  'tanned',
  'falling',
  'hissing',
  'fizzed',
  'failing',
  'filing',
  'happy',
  'sky',
  'relational',
  'conditional',
  'rational',
  'valenci',
  'hesitanci',
  'digitizer',
  'conformabli',
  'radicalli',
  'differentli',
  'vileli',
  'analogousli',
  'vietnamization',
  'predication',
  'operator',
  'feudalism',
  'decisiveness',
  'hopefulness',
  'callousness',
  'formaliti',
  'sensitiviti',
  'sensibiliti',
  'analogi',
  'triplicate',
  'formative',
  'formalize',
  'electriciti',
  'electrical',
  'hopeful',
  'goodness',
  'revival',
  'allowance',
  'inference',
  'airliner',
  'gyroscopic',
  'adjustable',
  'defensible',
  'irritant',
  'replacement',
  'adjustment',
  'dependent',
  'adoption',
  'homologou',
  'communism',
  'activate',
  'angulariti',
  'homologous',
  'effective',
  'bowdlerize',
  'probate',
  'rate',
  'cease',
  'controll',
  'roll',
  'generalizations',
  'oscillators',
  'says',
  'syllogism',
  'yelled',
  'yes',
  'toy',
  'toys',
  'played',
  'boyish',
  'eyeing',
  'dying',
  'lying',
  'skies',
  'ooze',
  'wax',
  'hoped',
  'hoping',
  'traditional',
  'quickly',
  'x',
  'ab',
  'abc',
  '70s',
  '2026',
  'm3',
  'v22',
  'k8s',
  'a'.repeat(65),
  'sses'.repeat(16),
]

/** Words the index folds before it stems, and terms it keeps as they are. */
const FOLDED_WORDS = ['café', 'naïve', 'résumé', 'über', 'größe', '端口', '数据', 'ポート', '데이터']

const PAIRS = fileURLToPath(new URL('./fixtures/near-duplicate-pairs.jsonl', import.meta.url))

function pairSetWords(): string[] {
  const words = new Set<string>()
  for (const line of readFileSync(PAIRS, 'utf8')
    .split('\n')
    .filter((text) => text.trim() !== '')) {
    const pair = JSON.parse(line) as Record<'a' | 'b', Record<'subject' | 'property' | 'value', string>>
    for (const side of [pair.a, pair.b])
      for (const text of [side.subject, side.property, side.value])
        for (const term of searchTerms(text)) words.add(term)
  }
  return [...words]
}

for (const driver of DRIVERS) {
  describe(`indexForm against FTS5 (${driver})`, () => {
    let root: string
    let db: Database
    before(() => {
      root = tempDir()
      db = Database.open({ dataDir: root, driver, now: () => '2026-03-01T09:00:00.000Z' })
      db.run(
        `CREATE VIRTUAL TABLE temp.stem_probe USING fts5 (terms, tokenize = 'porter unicode61 remove_diacritics 2')`,
      )
      db.run(`CREATE VIRTUAL TABLE temp.stem_probe_terms USING fts5vocab (temp, stem_probe, instance)`)
    })
    after(() => {
      db.close()
      removeDir(root)
    })

    /** What FTS5 stores for each word, one row per word. */
    function storedForms(words: readonly string[]): Map<string, string> {
      db.run('DELETE FROM temp.stem_probe')
      words.forEach((word, index) =>
        db.run('INSERT INTO temp.stem_probe (rowid, terms) VALUES (?, ?)', index + 1, word),
      )
      const stored = new Map<string, string>()
      for (const row of db.all('SELECT doc, term FROM temp.stem_probe_terms'))
        stored.set(words[Number(row['doc']) - 1] ?? '', String(row['term']))
      return stored
    }

    function assertSameForms(words: readonly string[]): void {
      const stored = storedForms(words)
      const differing = words
        .filter((word) => stored.get(word) !== indexForm(word))
        .map((word) => `${word}: FTS5 ${stored.get(word) ?? '(none)'}, indexForm ${indexForm(word)}`)
      assert.deepEqual(differing, [])
    }

    it("stems Porter's examples of every step as FTS5 does", () => {
      assertSameForms(PORTER_WORDS)
    })

    it('gives every term of the near-duplicate pair set the form FTS5 stores', () => {
      const words = pairSetWords().filter(
        (word) => /^[\p{Script=Latin}\p{N}]+$/u.test(word) || /^[\p{Script=Han}]+$/u.test(word),
      )
      assert.ok(words.length > 1000, `the pair set has ${words.length} distinct terms`)
      assertSameForms(words)
    })

    it('folds Latin diacritics as the index does and keeps CJK terms as written', () => {
      assertSameForms(FOLDED_WORDS.filter((word) => word !== 'größe'))
      assert.equal(indexForm('café'), 'cafe')
      assert.equal(indexForm('端口'), '端口')
    })
  })
}

describe('porterStem', () => {
  it('leaves words under three or over sixty-four characters, and anything but ASCII, as they are', () => {
    assert.equal(porterStem('is'), 'is')
    assert.equal(porterStem('a'.repeat(65)), 'a'.repeat(65))
    assert.equal(porterStem('größe'), 'größe')
  })

  it('folds inflections of one word into one stem', () => {
    assert.deepEqual(['approvals', 'approved', 'approval'].map(porterStem), ['approv', 'approv', 'approv'])
    assert.deepEqual(['serves', 'served', 'serving'].map(porterStem), ['serv', 'serv', 'serv'])
  })
})
