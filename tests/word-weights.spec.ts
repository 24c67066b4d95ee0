/**
 * Word weights from the language: the committed frequency table is what scripts/build-word-weights.ts derives from
 * the word-frequency packages, and it weighs a message's words as a person would: filler light, content heavy, in
 * English and in Chinese, a seam between two Chinese words lightest; and a message of filler around one stored word
 * is about that word in per-turn recall's judgement.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import {
  chineseCharTable,
  chineseTable,
  englishTable,
  WORD_ZIPF_MODULE,
  wordZipfModuleText,
} from '../scripts/build-word-weights.ts'
import { relevanceOf, weighMessage } from '../src/recall/relevance.ts'
import { questionTerms } from '../src/text/tokenize.ts'
import { COMMON_FLOOR, languageWeight, SEAM_WEIGHT, zipfOf } from '../src/text/word-weights.ts'

describe('word weights from the language', () => {
  it('is the table the word-frequency packages give (run `npm run build:word-weights` after changing the derivation)', () => {
    assert.equal(
      readFileSync(WORD_ZIPF_MODULE, 'utf8'),
      wordZipfModuleText(englishTable(), chineseTable(), chineseCharTable()),
    )
  })

  it('weighs English filler light and content heavy, folding inflections as the index does', () => {
    for (const filler of ['tell', 'please', 'make', 'sure', 'know', 'want'])
      assert.ok(languageWeight(filler, true) <= 0.2, `${filler}: ${languageWeight(filler, true)}`)
    for (const content of ['migration', 'database', 'refunds', 'deploy'])
      assert.ok(languageWeight(content, true) >= 0.75, `${content}: ${languageWeight(content, true)}`)
    assert.equal(zipfOf('fails'), zipfOf('failed'), 'one stem, one frequency')
    assert.ok(
      languageWeight('tell', true) < languageWeight('test', true) &&
        languageWeight('test', true) < languageWeight('migration', true),
    )
  })

  it('gives a word no list holds (a tool, an identifier) and a number their whole weight', () => {
    for (const term of ['psql', 'kubectl', 'pnpm', 'zustand', '7801'])
      assert.equal(languageWeight(term, false), 1, term)
  })

  it('weighs Chinese filler light, words heavy, and a seam between two words lightest unless the library holds it', () => {
    for (const filler of ['一下', '什么', '怎么', '这边'])
      assert.ok(languageWeight(filler, false) <= 0.3, `${filler}: ${languageWeight(filler, false)}`)
    for (const content of ['据库', '端口', '退款'])
      assert.ok(languageWeight(content, true) >= 0.6, `${content}: ${languageWeight(content, true)}`)
    assert.equal(languageWeight('下测', false), SEAM_WEIGHT, 'the seam of 一下测试')
    assert.ok(languageWeight('王芳', true) > languageWeight('王芳', false), 'a pair the library holds is a word there')
    assert.equal(languageWeight('的时', true), COMMON_FLOOR, 'a pair holding 的 is grammar')
  })

  it('lets a message of filler around one stored word be about that word', () => {
    // The fact holds "test"; the message adds words the library never indexed.
    const weigh = (message: string): number => {
      const terms = questionTerms(message, 32)
      const counts = new Map(terms.map((term) => [term, term === 'test' || term === 'tests' || term === 'run' ? 1 : 0]))
      return relevanceOf(weighMessage(terms, counts, 300, message), ['billing-service', 'test command', 'npm run test'])
    }
    assert.ok(
      weigh('Run the test suite and tell me what fails.') >= 0.4,
      String(weigh('Run the test suite and tell me what fails.')),
    )
    assert.ok(
      weigh('Write me a haiku about autumn leaves and test it') < 0.4,
      'rare words the library lacks keep weighing',
    )
  })
})
