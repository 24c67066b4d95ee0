// Proves the pure text layer: canonical keys, search terms, FTS expressions, identifiers and zone-aware dates.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  canonicalEntity,
  canonicalPredicate,
  canonicalQualifiers,
  canonicalValue,
  claimKeyOf,
  evidenceKeyOf,
  foldText,
  sha256,
  slotKeyOf,
} from '../src/text/normalize.ts'
import { ftsMatchExpression, hasCjk, indexText, searchTerms } from '../src/text/tokenize.ts'
import { extractIdentifiers, isIdentifierShaped } from '../src/text/identifiers.ts'
import { dateArgumentInstant, formatDay, formatInstant } from '../src/text/dates.ts'

const HEX64 = /^[0-9a-f]{64}$/u

describe('foldText', () => {
  it('applies NFKC, lower-cases, collapses whitespace runs and trims', () => {
    assert.equal(foldText('  Ｈｅｌｌｏ\n\t  World  '), 'hello world')
  })

  it('leaves Chinese text intact apart from whitespace', () => {
    assert.equal(foldText(' 数据库  端口\n是 7801 '), '数据库 端口 是 7801')
  })

  it('is what canonicalValue uses for claim identity', () => {
    assert.equal(canonicalValue('  PostgreSQL   16 '), 'postgresql 16')
    assert.equal(canonicalValue('ＶＳ　Ｃｏｄｅ'), 'vs code')
  })
})

describe('canonicalEntity', () => {
  it('folds case and separators so DSH Fact Memory and dsh-fact-memory are one entity', () => {
    assert.equal(canonicalEntity('DSH Fact Memory'), 'dsh fact memory')
    assert.equal(canonicalEntity('dsh-fact-memory'), 'dsh fact memory')
    assert.equal(canonicalEntity('dsh_fact.memory'), 'dsh fact memory')
  })

  it('drops a trailing role word so "dsh_fact_memory plugin" is the same entity', () => {
    assert.equal(canonicalEntity('dsh_fact_memory plugin'), 'dsh fact memory')
    assert.equal(canonicalEntity('Billing Service'), 'billing')
    assert.equal(canonicalEntity('Atlas project'), 'atlas')
  })

  it('drops several stacked trailing role words', () => {
    assert.equal(canonicalEntity('Foo Project Plugin'), 'foo')
  })

  it('keeps a role word that is the whole name', () => {
    assert.equal(canonicalEntity('plugin'), 'plugin')
    assert.equal(canonicalEntity('Project'), 'project')
  })

  it('keeps generic words such as server because they change the meaning', () => {
    assert.equal(canonicalEntity('Mail Server'), 'mail server')
  })

  it('drops CJK role suffixes such as 插件 and 项目 when at least two characters remain', () => {
    assert.equal(canonicalEntity('支付插件'), '支付')
    assert.equal(canonicalEntity('数据项目'), '数据')
    assert.equal(canonicalEntity('用户服务'), '用户')
  })

  it('keeps the CJK suffix when fewer than two characters would remain, so 微服务 stays 微服务', () => {
    assert.equal(canonicalEntity('微服务'), '微服务')
    assert.equal(canonicalEntity('插件'), '插件')
  })

  it('drops a CJK role word written as a separate word', () => {
    assert.equal(canonicalEntity('记忆 插件'), '记忆')
  })

  it('folds full-width letters', () => {
    assert.equal(canonicalEntity('ＤＳＨ'), 'dsh')
  })
})

describe('canonicalPredicate', () => {
  it('folds case and separators so Preferred_Editor and preferred-editor are one predicate', () => {
    assert.equal(canonicalPredicate('Preferred_Editor'), 'preferred editor')
    assert.equal(canonicalPredicate('preferred-editor'), 'preferred editor')
    assert.equal(canonicalPredicate('  Preferred   Editor '), 'preferred editor')
  })

  it('does not drop role words, unlike subjects', () => {
    assert.equal(canonicalPredicate('main plugin'), 'main plugin')
  })

  it('keeps Chinese predicates whole', () => {
    assert.equal(canonicalPredicate('默认端口'), '默认端口')
  })
})

describe('canonicalQualifiers', () => {
  it('returns {} for no qualifiers and for an empty record', () => {
    assert.equal(canonicalQualifiers(undefined), '{}')
    assert.equal(canonicalQualifiers({}), '{}')
  })

  it('folds keys like predicates and values like text, and sorts keys', () => {
    assert.equal(canonicalQualifiers({ Env: ' Prod ', Alpha_Key: 'X' }), '{"alpha key":"x","env":"prod"}')
  })

  it('gives the same text regardless of insertion order', () => {
    assert.equal(
      canonicalQualifiers({ region: 'EU', env: 'prod', 环境: '生产' }),
      canonicalQualifiers({ 环境: '生产', env: 'PROD', Region: 'eu' }),
    )
  })

  it('drops pairs whose key or value folds to empty', () => {
    assert.equal(canonicalQualifiers({ env: '   ', '': 'x', region: 'eu' }), '{"region":"eu"}')
  })
})

describe('claimKeyOf and slotKeyOf', () => {
  const claim = claimKeyOf('dsh fact memory', 'port', '{}', '7801')
  const slot = slotKeyOf('dsh fact memory', 'port', '{}')

  it('are 64-hex SHA-256 digests that are stable for the same input', () => {
    assert.match(claim, HEX64)
    assert.match(slot, HEX64)
    assert.equal(claimKeyOf('dsh fact memory', 'port', '{}', '7801'), claim)
    assert.equal(slotKeyOf('dsh fact memory', 'port', '{}'), slot)
  })

  it('change the claim key when any one of entity, predicate, qualifiers or value changes', () => {
    const variants = [
      claimKeyOf('dsh fact', 'port', '{}', '7801'),
      claimKeyOf('dsh fact memory', 'host', '{}', '7801'),
      claimKeyOf('dsh fact memory', 'port', '{"env":"prod"}', '7801'),
      claimKeyOf('dsh fact memory', 'port', '{}', '7802'),
    ]
    for (const variant of variants) assert.notEqual(variant, claim)
    assert.equal(new Set(variants).size, 4)
  })

  it('change the slot key when entity, predicate or qualifiers change', () => {
    const variants = [
      slotKeyOf('dsh fact', 'port', '{}'),
      slotKeyOf('dsh fact memory', 'host', '{}'),
      slotKeyOf('dsh fact memory', 'port', '{"env":"prod"}'),
    ]
    for (const variant of variants) assert.notEqual(variant, slot)
    assert.equal(new Set(variants).size, 3)
  })

  it('do not confuse component boundaries ("a b"+"c" is not "a"+"b c")', () => {
    assert.notEqual(claimKeyOf('a b', 'c', '{}', 'v'), claimKeyOf('a', 'b c', '{}', 'v'))
    assert.notEqual(slotKeyOf('a b', 'c', '{}'), slotKeyOf('a', 'b c', '{}'))
  })

  it('keep the slot key distinct from the claim key of the same slot', () => {
    assert.notEqual(slot, claim)
    assert.notEqual(slotKeyOf('x', 'y', '{}'), claimKeyOf('x', 'y', '{}', ''))
  })

  it('hash a JSON framing of the components, so the key is reproducible outside the plugin', () => {
    assert.equal(claim, sha256(JSON.stringify(['claim', 'dsh fact memory', 'port', '{}', '7801'])))
    assert.equal(sha256(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  })

  it('work on Chinese components', () => {
    const chinese = claimKeyOf('支付', '默认端口', '{}', '7801')
    assert.match(chinese, HEX64)
    assert.notEqual(chinese, claimKeyOf('支付', '默认端口', '{}', '7802'))
  })
})

describe('evidenceKeyOf', () => {
  const claimA = claimKeyOf('a', 'p', '{}', '1')
  const claimB = claimKeyOf('b', 'p', '{}', '1')

  it('keys on the folded quote when there is one, independent of the claim', () => {
    assert.equal(evidenceKeyOf('The port is 7801', claimA), evidenceKeyOf('  the PORT is\n7801 ', claimB))
    assert.match(evidenceKeyOf('The port is 7801', claimA), HEX64)
  })

  it('distinguishes different quotes', () => {
    assert.notEqual(evidenceKeyOf('端口是7801', claimA), evidenceKeyOf('端口是7802', claimA))
  })

  it('falls back to the claim key when the quote is missing, null, empty or blank', () => {
    const fallback = evidenceKeyOf(undefined, claimA)
    assert.equal(evidenceKeyOf(null, claimA), fallback)
    assert.equal(evidenceKeyOf('', claimA), fallback)
    assert.equal(evidenceKeyOf('   ', claimA), fallback)
    assert.notEqual(evidenceKeyOf(undefined, claimB), fallback)
  })

  it('never equals the quote key of a quote that spells the claim key', () => {
    assert.notEqual(evidenceKeyOf(claimA, 'x'), evidenceKeyOf(undefined, claimA))
  })
})

describe('searchTerms', () => {
  it('splits a CJK run into overlapping bigrams', () => {
    assert.deepEqual(searchTerms('数据库端口'), ['数据', '据库', '库端', '端口'])
  })

  it('keeps a single CJK character as a unigram', () => {
    assert.deepEqual(searchTerms('库'), ['库'])
    assert.deepEqual(searchTerms('我 的'), ['我', '的'])
  })

  it('lower-cases ASCII words and drops English stopwords', () => {
    assert.deepEqual(searchTerms('The port of the database is 5432'), ['port', 'database', '5432'])
  })

  it('separates a CJK run from the digits that follow it, as in 端口7801', () => {
    assert.deepEqual(searchTerms('端口7801'), ['端口', '7801'])
  })

  it('handles mixed Chinese and English in text order', () => {
    assert.deepEqual(searchTerms('DSH插件的端口是7801'), ['dsh', '插件', '件的', '的端', '端口', '口是', '7801'])
  })

  it('drops punctuation, including full-width Chinese punctuation', () => {
    assert.deepEqual(searchTerms('Hello, World! 数据，端口。'), ['hello', 'world', '数据', '端口'])
  })

  it('folds full-width letters via NFKC and keeps duplicates', () => {
    assert.deepEqual(searchTerms('ＰＯＲＴ port'), ['port', 'port'])
  })

  it('returns nothing for stopwords only or empty text', () => {
    assert.deepEqual(searchTerms('the of and is'), [])
    assert.deepEqual(searchTerms(''), [])
  })
})

describe('indexText and hasCjk', () => {
  it('joins the terms of every part with spaces', () => {
    assert.equal(indexText(['DSH plugin', '端口', 'is 7801']), 'dsh plugin 端口 7801')
  })

  it('detects CJK characters and only them', () => {
    assert.equal(hasCjk('port 7801'), false)
    assert.equal(hasCjk('port 端口'), true)
    assert.equal(hasCjk('カタカナ'), true)
  })
})

describe('ftsMatchExpression', () => {
  it('quotes each distinct term and joins them with OR', () => {
    assert.equal(ftsMatchExpression('database port 数据库', 10), '"database" OR "port" OR "数据" OR "据库"')
  })

  it('removes duplicates before applying the term cap', () => {
    assert.equal(ftsMatchExpression('port port port db', 2), '"port" OR "db"')
  })

  it('caps the number of terms', () => {
    assert.equal(ftsMatchExpression('one two three four', 2), '"one" OR "two"')
  })

  it('returns undefined when there is no searchable term', () => {
    assert.equal(ftsMatchExpression('the of and', 10), undefined)
    assert.equal(ftsMatchExpression('', 10), undefined)
    assert.equal(ftsMatchExpression('!!! ??? "" ', 10), undefined)
    assert.equal(ftsMatchExpression('database', 0), undefined)
  })

  it('never lets a double quote or FTS5 operator in the query escape its quoted string', () => {
    const expression = ftsMatchExpression('say "hi" OR port* NEAR(x) -y ^z', 20)
    assert.equal(expression, '"say" OR "hi" OR "port" OR "near" OR "x" OR "y" OR "z"')
    assert.match(expression ?? '', /^"[^"]+"(?: OR "[^"]+")*$/u)
  })
})

describe('extractIdentifiers', () => {
  it('keeps URLs whole and strips trailing sentence punctuation', () => {
    const ids = extractIdentifiers('See https://example.com/a/b?x=1. ok')
    assert.ok(ids.includes('https://example.com/a/b?x=1'), JSON.stringify(ids))
    assert.ok(!ids.includes('https://example.com/a/b?x=1.'), JSON.stringify(ids))
  })

  it('keeps absolute, relative and Windows paths', () => {
    const ids = extractIdentifiers('path /usr/local/bin and ./src/index.ts and C:\\Users\\me')
    assert.ok(ids.includes('/usr/local/bin'), JSON.stringify(ids))
    assert.ok(ids.includes('./src/index.ts'), JSON.stringify(ids))
    assert.ok(ids.includes('c:\\users\\me'), JSON.stringify(ids))
  })

  it('yields v1.2.3 and also the bare 1.2.3', () => {
    assert.deepEqual(extractIdentifiers('version v1.2.3 and 2.0'), ['v1.2.3', '1.2.3', '2.0'])
  })

  it('yields a host:port and also its port', () => {
    assert.deepEqual(extractIdentifiers('localhost:7801'), ['localhost:7801', '7801'])
  })

  it('keeps package and model names such as @scope/pkg, dsh-fact-memory and bge-m3', () => {
    const ids = extractIdentifiers('Install @scope/pkg, DSH-Fact-Memory and bge-m3.')
    assert.ok(ids.includes('@scope/pkg'), JSON.stringify(ids))
    assert.ok(ids.includes('dsh-fact-memory'), JSON.stringify(ids))
    assert.ok(ids.includes('bge-m3'), JSON.stringify(ids))
  })

  it('excludes plain words and single digits', () => {
    assert.deepEqual(extractIdentifiers('hello world plain Port 7'), [])
  })

  it('finds numbers of two or more digits inside Chinese text', () => {
    assert.deepEqual(extractIdentifiers('数据库端口是7801'), ['7801'])
    assert.deepEqual(extractIdentifiers('版本v2.1.0已发布'), ['v2.1.0', '2.1.0'])
  })

  it('returns distinct identifiers', () => {
    assert.deepEqual(extractIdentifiers('7801 and 7801 again'), ['7801'])
  })
})

describe('isIdentifierShaped', () => {
  it('accepts numbers, versions and names with a separator or a digit', () => {
    for (const token of ['7801', 'v1.2', '1.2.3-rc.1', 'bge-m3', 'gpt4', 'a.b', 'host:80']) {
      assert.equal(isIdentifierShaped(token), true, token)
    }
  })

  it('rejects plain words, single digits and bare punctuation', () => {
    for (const token of ['hello', '7', '--', '数据库']) assert.equal(isIdentifierShaped(token), false, token)
  })
})

describe('formatInstant and formatDay', () => {
  it('shows an instant as local date and time in Asia/Shanghai (UTC+8)', () => {
    assert.equal(formatInstant('2026-03-01T16:30:00.000Z', 'Asia/Shanghai'), '2026-03-02 00:30')
    assert.equal(formatDay('2026-03-01T16:30:00.000Z', 'Asia/Shanghai'), '2026-03-02')
  })

  it('shows the same instant on the previous evening in America/New_York (UTC-5 in winter)', () => {
    assert.equal(formatInstant('2026-03-01T16:30:00.000Z', 'America/New_York'), '2026-03-01 11:30')
    assert.equal(formatDay('2026-03-01T03:30:00.000Z', 'America/New_York'), '2026-02-28')
  })

  it('follows daylight saving time in America/New_York (UTC-4 in summer)', () => {
    assert.equal(formatInstant('2026-07-01T03:30:00.000Z', 'America/New_York'), '2026-06-30 23:30')
  })

  it('writes midnight as 00:00, never 24:00', () => {
    assert.equal(formatInstant('2026-03-01T16:00:00.000Z', 'Asia/Shanghai'), '2026-03-02 00:00')
  })

  it('shows UTC unchanged', () => {
    assert.equal(formatInstant('2026-12-31T23:59:00.000Z', 'UTC'), '2026-12-31 23:59')
  })
})

describe('dateArgumentInstant', () => {
  it('reads a bare date as the start of that day in Asia/Shanghai', () => {
    assert.equal(dateArgumentInstant('2026-03-01', 'Asia/Shanghai', 'start'), '2026-02-28T16:00:00.000Z')
  })

  it('reads a bare date as the last millisecond of that day in Asia/Shanghai', () => {
    assert.equal(dateArgumentInstant('2026-03-01', 'Asia/Shanghai', 'end'), '2026-03-01T15:59:59.999Z')
  })

  it('reads a bare date in America/New_York in winter and in summer', () => {
    assert.equal(dateArgumentInstant('2026-01-15', 'America/New_York', 'start'), '2026-01-15T05:00:00.000Z')
    assert.equal(dateArgumentInstant('2026-01-15', 'America/New_York', 'end'), '2026-01-16T04:59:59.999Z')
    assert.equal(dateArgumentInstant('2026-07-01', 'America/New_York', 'start'), '2026-07-01T04:00:00.000Z')
  })

  it('handles the 23-hour day when New York springs forward', () => {
    assert.equal(dateArgumentInstant('2026-03-08', 'America/New_York', 'start'), '2026-03-08T05:00:00.000Z')
    assert.equal(dateArgumentInstant('2026-03-08', 'America/New_York', 'end'), '2026-03-09T03:59:59.999Z')
  })

  it('accepts surrounding whitespace and leap days in leap years', () => {
    assert.equal(dateArgumentInstant(' 2026-03-01 ', 'UTC', 'start'), '2026-03-01T00:00:00.000Z')
    assert.equal(dateArgumentInstant('2024-02-29', 'UTC', 'start'), '2024-02-29T00:00:00.000Z')
  })

  it('takes a full timestamp without an offset as UTC, whatever the zone and edge', () => {
    assert.equal(dateArgumentInstant('2026-03-01T10:00:00', 'Asia/Shanghai', 'start'), '2026-03-01T10:00:00.000Z')
    assert.equal(dateArgumentInstant('2026-03-01 10:00', 'Asia/Shanghai', 'end'), '2026-03-01T10:00:00.000Z')
    assert.equal(
      dateArgumentInstant('2026-03-01T10:00:00.123Z', 'America/New_York', 'start'),
      '2026-03-01T10:00:00.123Z',
    )
  })

  it('applies the offset of a full timestamp that carries one', () => {
    assert.equal(dateArgumentInstant('2026-03-01T10:00:00+08:00', 'UTC', 'start'), '2026-03-01T02:00:00.000Z')
    assert.equal(dateArgumentInstant('2026-03-01T10:00:00-05:00', 'UTC', 'start'), '2026-03-01T15:00:00.000Z')
    assert.equal(dateArgumentInstant('2026-03-01T10:00:00+0530', 'UTC', 'start'), '2026-03-01T04:30:00.000Z')
  })

  it('returns undefined for impossible calendar days such as 2026-02-30, 2026-04-31 and 2026-02-29', () => {
    assert.equal(dateArgumentInstant('2026-02-30', 'Asia/Shanghai', 'start'), undefined)
    assert.equal(dateArgumentInstant('2026-04-31', 'UTC', 'end'), undefined)
    assert.equal(dateArgumentInstant('2026-02-29', 'UTC', 'start'), undefined)
  })

  it('returns undefined for impossible months such as 2026-13-01 and 2026-00-10', () => {
    assert.equal(dateArgumentInstant('2026-13-01', 'UTC', 'start'), undefined)
    assert.equal(dateArgumentInstant('2026-00-10', 'UTC', 'start'), undefined)
  })

  it('returns undefined for a full timestamp on an impossible day such as 2026-02-30T10:00:00Z', () => {
    assert.equal(dateArgumentInstant('2026-02-30T10:00:00Z', 'UTC', 'start'), undefined)
    assert.equal(dateArgumentInstant('2026-04-31T00:00:00Z', 'UTC', 'start'), undefined)
  })

  it('returns undefined for an impossible time and for text that is not a date', () => {
    assert.equal(dateArgumentInstant('2026-03-01T25:00:00Z', 'UTC', 'start'), undefined)
    assert.equal(dateArgumentInstant('yesterday', 'UTC', 'start'), undefined)
    assert.equal(dateArgumentInstant('2026/03/01', 'UTC', 'start'), undefined)
    assert.equal(dateArgumentInstant('昨天', 'Asia/Shanghai', 'start'), undefined)
    assert.equal(dateArgumentInstant('', 'UTC', 'start'), undefined)
  })
})
