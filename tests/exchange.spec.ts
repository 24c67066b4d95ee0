/**
 * The exchange format without a store: record and manifest lines, the records hash, splitting a file into numbered
 * lines with their parse errors, record and manifest validation, and confinement of paths to the data directory
 * (traversal, absolute, UNC, NUL, and real symbolic links that leave it).
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import {
  bytesSha256,
  decodeUtf8,
  EXCHANGE_FORMAT,
  EXCHANGE_FORMAT_VERSION,
  looksLikeManifest,
  manifestLine,
  parseLines,
  recordLine,
  recordOf,
  RecordsHasher,
  recordsSha256,
} from '../src/exchange/jsonl.ts'
import { confinePath } from '../src/exchange/paths.ts'
import { parseManifest, parseRecord } from '../src/exchange/record.schema.ts'
import type { Fact, FactId } from '../src/types.ts'
import { removeDir, tempDir } from './helpers/store.ts'

function fact(overrides: Partial<Fact> = {}): Fact {
  return {
    id: 7 as FactId,
    subject: '支付服务',
    entityKey: '支付服务',
    property: '端口',
    predicateKey: '端口',
    qualifiers: { 环境: '生产', cluster: 'east' },
    scope: 'global',
    projectName: null,
    value: '7801',
    slotKey: 'slot',
    claimKey: 'claim',
    multi: false,
    status: 'active',
    evidence: 'observed',
    confidence: 0.9,
    sensitivity: null,
    modelUseAllowed: true,
    observedAt: '2026-03-01T09:00:00.000Z',
    recordedAt: '2026-03-01T09:00:00.000Z',
    validFrom: '2026-03-01T09:00:00.000Z',
    validTo: null,
    supersededBy: null,
    conflictGroupId: null,
    revision: 1,
    origin: 'tool',
    sessionId: 'session-1',
    turn: 2,
    quote: '支付服务的端口是 7801',
    foldedCount: 0,
    foldedFrom: [],
    pinnedAt: null,
    cues: [],
    ...overrides,
  }
}

const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')

describe('exchange records', () => {
  it('writes every field the format names, in a fixed order, and nothing about ids, sessions or keys', () => {
    const record = recordOf(fact())
    assert.deepEqual(Object.keys(record), [
      'subject',
      'property',
      'qualifiers',
      'scope',
      'value',
      'status',
      'evidence',
      'confidence',
      'sensitivity',
      'modelUseAllowed',
      'multi',
      'validFrom',
      'validTo',
      'observedAt',
      'recordedAt',
      'quote',
    ])
    assert.equal(record.value, '7801')
    assert.equal(record.quote, '支付服务的端口是 7801')
  })

  it('writes qualifiers in key order, so the same fact always gives the same line', () => {
    const a = recordLine(recordOf(fact({ qualifiers: { b: '2', a: '1' } })))
    const b = recordLine(recordOf(fact({ qualifiers: { a: '1', b: '2' } })))
    assert.equal(a, b)
    assert.match(a, /"qualifiers":\{"a":"1","b":"2"\}/u)
  })

  it('withholds a credential: valueWithheld true, no value key, no quote', () => {
    const record = recordOf(
      fact({
        property: 'api key',
        value: 'sk-abcdefghijklmnop1234',
        sensitivity: 'credential',
        modelUseAllowed: false,
        quote: 'key sk-abcdefghijklmnop1234',
      }),
    )
    assert.equal(record.valueWithheld, true)
    assert.equal(Object.hasOwn(record, 'value'), false)
    assert.equal(record.quote, null)
    assert.doesNotMatch(recordLine(record), /sk-abcdefghijklmnop1234/u)
  })

  it('keeps Chinese text as raw UTF-8 and escapes line breaks, so a record is one physical line', () => {
    const line = recordLine(recordOf(fact({ value: '第一行\n第二行\r\n第三行' })))
    assert.equal(line.includes('\n'), false)
    assert.equal(line.includes('\r'), false)
    assert.ok(line.includes('支付服务'))
    assert.doesNotMatch(line, /\\u[0-9a-f]{4}/iu)
    assert.deepEqual(JSON.parse(line).value, '第一行\n第二行\r\n第三行')
  })

  it('puts the manifest fields in a fixed order under the format name and version 1', () => {
    const line = manifestLine({
      format: EXCHANGE_FORMAT,
      version: EXCHANGE_FORMAT_VERSION,
      storeId: 'store-1',
      generation: 12,
      exportedAt: '2026-03-01T09:00:00.000Z',
      records: 2,
      records_sha256: 'a'.repeat(64),
    })
    assert.equal(
      line,
      `{"format":"${EXCHANGE_FORMAT}","version":1,"storeId":"store-1","generation":12,"exportedAt":"2026-03-01T09:00:00.000Z","records":2,"records_sha256":"${'a'.repeat(64)}"}`,
    )
    assert.equal(EXCHANGE_FORMAT_VERSION, 1)
  })
})

describe('the records hash', () => {
  it('is SHA-256 over the record lines exactly as written, each followed by a line feed', () => {
    const lines = [recordLine(recordOf(fact())), recordLine(recordOf(fact({ value: '7802' })))]
    assert.equal(recordsSha256(lines), sha(`${lines[0]}\n${lines[1]}\n`))
    assert.notEqual(recordsSha256(lines), sha(lines.join('\n')), 'the last line is followed by a line feed too')
  })

  it('hashes incrementally to the same digest and counts the lines', () => {
    const hasher = new RecordsHasher()
    hasher.add('{"a":1}')
    hasher.add('{"b":"中文"}')
    assert.equal(hasher.count, 2)
    assert.equal(hasher.digest(), sha('{"a":1}\n{"b":"中文"}\n'))
  })

  it('hashes no records to the digest of the empty string', () => {
    assert.equal(recordsSha256([]), sha(''))
  })

  it('hashes file bytes, not decoded text', () => {
    const bytes = Buffer.from('\uFEFF{"a":1}\n', 'utf8')
    assert.equal(bytesSha256(bytes), createHash('sha256').update(bytes).digest('hex'))
    assert.notEqual(bytesSha256(bytes), sha('{"a":1}\n'))
  })
})

describe('reading an import file', () => {
  it('numbers lines from 1, skips blank lines but still counts them', () => {
    const lines = parseLines('{"a":1}\n\n   \n{"b":2}\n')
    assert.deepEqual(
      lines.map((line) => line.line),
      [1, 4],
    )
    assert.deepEqual(
      lines.map((line) => line.ok && line.value),
      [{ a: 1 }, { b: 2 }],
    )
  })

  it('reports a line that is not JSON with its line number and the parser message', () => {
    const lines = parseLines('{"a":1}\n{"b":\n{"c":3}')
    const bad = lines.find((line) => !line.ok)
    assert.equal(bad?.line, 2)
    assert.match(!bad?.ok ? (bad?.reason ?? '') : '', /^not valid JSON \(/u)
    assert.deepEqual(
      lines.map((line) => line.ok),
      [true, false, true],
    )
  })

  it('does not quote the broken line back in its reason, since the line may hold a secret', () => {
    const [bad] = parseLines('sk-abcdefghijklmnop1234 is my key')
    assert.equal(bad?.ok, false)
    assert.doesNotMatch(!bad?.ok ? (bad?.reason ?? '') : '', /sk-abc/u)
  })

  it('drops a leading BOM and the CR of CRLF endings that editors add', () => {
    const lines = parseLines('\uFEFF{"a":1}\r\n{"b":"x"}\r\n')
    assert.deepEqual(
      lines.map((line) => line.ok && line.value),
      [{ a: 1 }, { b: 'x' }],
    )
    assert.deepEqual(
      lines.map((line) => line.text),
      ['{"a":1}', '{"b":"x"}'],
    )
  })

  it('refuses malformed UTF-8 instead of replacing it', () => {
    assert.equal(decodeUtf8(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), undefined)
    assert.equal(decodeUtf8(Buffer.from('{"v":"中文"}', 'utf8')), '{"v":"中文"}')
  })

  it('tells a manifest from a record by its format field', () => {
    assert.equal(looksLikeManifest({ format: EXCHANGE_FORMAT }), true)
    assert.equal(looksLikeManifest({ subject: 'a' }), false)
    assert.equal(looksLikeManifest(['format']), false)
    assert.equal(looksLikeManifest(null), false)
  })
})

describe('record and manifest validation', () => {
  it('accepts a hand-written record with only subject, property and value', () => {
    const parsed = parseRecord({ subject: 'billing-api', property: 'port', value: '7801' })
    assert.equal(parsed.ok, true)
  })

  it('accepts a withheld credential record as a record (the import refuses it later)', () => {
    assert.equal(parseRecord({ subject: 'svc', property: 'api key', valueWithheld: true }).ok, true)
  })

  it('refuses a record carrying both a value and valueWithheld, or neither', () => {
    const both = parseRecord({ subject: 's', property: 'p', value: 'v', valueWithheld: true })
    const neither = parseRecord({ subject: 's', property: 'p' })
    assert.equal(both.ok, false)
    assert.equal(neither.ok, false)
    assert.match(!both.ok ? both.reason : '', /exactly one of value or valueWithheld/u)
  })

  it('names an unknown or misspelt field', () => {
    const parsed = parseRecord({ subject: 's', property: 'p', vaule: 'v', value: 'v' })
    assert.equal(parsed.ok, false)
    assert.match(!parsed.ok ? parsed.reason : '', /unknown field "vaule"/u)
  })

  it('refuses a forgotten status, an unknown evidence, a bad date and control characters, naming each field', () => {
    const parsed = parseRecord({
      subject: 's\u0007',
      property: 'p',
      value: 'v',
      status: 'forgotten',
      evidence: 'hearsay',
      validFrom: 'tuesday',
    })
    assert.equal(parsed.ok, false)
    const reason = !parsed.ok ? parsed.reason : ''
    for (const field of ['subject', 'status', 'evidence', 'validFrom'])
      assert.match(reason, new RegExp(`${field}: `, 'u'))
  })

  it('says a line that is not an object is not a JSON object', () => {
    const parsed = parseRecord([1, 2])
    assert.equal(!parsed.ok && parsed.reason, 'the line is not a JSON object')
  })

  it('accepts this format at version 1 and refuses another version or format', () => {
    const manifest = {
      format: EXCHANGE_FORMAT,
      version: 1,
      storeId: 's',
      generation: 0,
      exportedAt: '2026-03-01T09:00:00.000Z',
      records: 0,
      records_sha256: sha(''),
    }
    assert.equal(parseManifest(manifest).ok, true)
    const newer = parseManifest({ ...manifest, version: 2 })
    assert.equal(newer.ok, false)
    assert.match(!newer.ok ? newer.reason : '', /version: this plugin reads version 1/u)
    assert.equal(parseManifest({ ...manifest, format: 'other' }).ok, false)
  })
})

describe('path confinement', () => {
  let root: string
  let dataDir: string
  beforeEach(() => {
    root = tempDir('fact-memory-paths-')
    dataDir = join(root, 'data')
    mkdirSync(join(dataDir, 'exports'), { recursive: true })
    writeFileSync(join(dataDir, 'exports', 'facts.jsonl'), '{}\n')
    writeFileSync(join(root, 'outside.jsonl'), '{}\n')
  })
  afterEach(() => removeDir(root))

  const refusal = (requested: string, platform?: NodeJS.Platform): string => {
    const confined = confinePath(dataDir, requested, platform)
    assert.equal(confined.ok, false, `${requested} should be refused`)
    return confined.ok ? '' : confined.reason
  }

  it('accepts a path relative to the data directory and answers its real path', () => {
    const confined = confinePath(dataDir, 'exports/facts.jsonl')
    assert.equal(confined.ok, true)
    assert.equal(confined.ok && confined.relativePath, 'exports/facts.jsonl')
  })

  it('accepts a file that does not exist yet below an existing directory', () => {
    const confined = confinePath(dataDir, 'exports/new/facts.jsonl')
    assert.equal(confined.ok && confined.relativePath, 'exports/new/facts.jsonl')
  })

  it('accepts an absolute path inside the data directory', () => {
    assert.equal(confinePath(dataDir, join(dataDir, 'exports', 'facts.jsonl')).ok, true)
  })

  it('refuses ".." segments, even ones that would come back inside', () => {
    assert.match(refusal('../outside.jsonl'), /"\.\." segments/u)
    assert.match(refusal('exports/../exports/facts.jsonl'), /"\.\." segments/u)
    assert.match(refusal('exports\\..\\..\\outside.jsonl'), /"\.\." segments/u)
  })

  it('refuses an absolute path outside the data directory', () => {
    assert.match(refusal(join(root, 'outside.jsonl')), /absolute path outside/u)
    assert.match(refusal('/etc/passwd'), /absolute path outside/u)
  })

  it('refuses UNC and device paths in either slash style', () => {
    assert.match(refusal('\\\\server\\share\\facts.jsonl'), /UNC/u)
    assert.match(refusal('//server/share/facts.jsonl'), /UNC/u)
    assert.match(refusal('\\\\?\\C:\\facts.jsonl'), /UNC/u)
  })

  it('refuses a NUL byte', () => {
    assert.match(refusal('exports/facts.jsonl\u0000.txt'), /NUL/u)
  })

  it('refuses a drive-letter path off Windows and the data directory itself', () => {
    assert.match(refusal('C:\\facts.jsonl', 'linux'), /absolute path outside/u)
    assert.match(refusal('.'), /leaves the data directory/u)
    assert.match(refusal(''), /empty/u)
  })

  it('refuses a symbolic link to a file outside the data directory', () => {
    symlinkSync(join(root, 'outside.jsonl'), join(dataDir, 'exports', 'escape.jsonl'))
    assert.match(refusal('exports/escape.jsonl'), /symbolic link/u)
  })

  it('refuses a path below a symbolic link to a directory outside, whether the file exists or not', () => {
    symlinkSync(root, join(dataDir, 'up'))
    assert.match(refusal('up/outside.jsonl'), /symbolic link/u)
    assert.match(refusal('up/not-yet.jsonl'), /symbolic link/u)
  })

  it('accepts a symbolic link that stays inside the data directory', () => {
    symlinkSync(join(dataDir, 'exports', 'facts.jsonl'), join(dataDir, 'latest.jsonl'))
    const confined = confinePath(dataDir, 'latest.jsonl')
    assert.equal(confined.ok && confined.relativePath, 'exports/facts.jsonl')
  })

  it('accepts paths when the data directory itself is reached through a symbolic link', () => {
    const alias = join(root, 'alias')
    symlinkSync(dataDir, alias)
    assert.equal(confinePath(alias, 'exports/facts.jsonl').ok, true)
    assert.equal(confinePath(alias, join(alias, 'exports', 'facts.jsonl')).ok, true)
  })
})
