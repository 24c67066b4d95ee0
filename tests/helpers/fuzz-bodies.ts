/**
 * Seeded random request bodies for the management routes. Every body the generator makes is invalid for a
 * state-changing verb: an object always carries at least one poison (an unknown field or a known field with a value of
 * the wrong type), placed last so no duplicate key can override it; non-object JSON, malformed text and invalid UTF-8
 * are invalid everywhere, and so is an empty body.
 */

/** A seeded PRNG (mulberry32). */
export class Rng {
  private state: number

  /** @param seed - any 32-bit integer. */
  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p
  }

  /** One element. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)]
    if (item === undefined) throw new Error('pick from an empty list')
    return item
  }
}

/** The JSON type a known field expects, as far as wrong-typing it goes. */
export type FieldKind = 'int' | 'bool' | 'string' | 'stringOrArray' | 'stringArray' | 'record'

const FENCE = { expectedGeneration: 'int', operationId: 'string' } as const

/** Every verb's known body fields (from src/management/wire.schema.ts). Verbs not listed accept any object. */
export const KNOWN_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldKind>>>> = {
  status: { force: 'bool', summary: 'bool' },
  export: { backup: 'bool', format: 'string', includeSensitive: 'bool' },
  'session-pause': { sessionId: 'string', paused: 'bool' },
  rebuild: { ...FENCE },
  import: { ...FENCE, path: 'string', content: 'string', mode: 'string', token: 'string' },
  conflicts: {},
  resolve: { ...FENCE, groupId: 'int', keepFactId: 'int' },
  proposals: { status: 'stringOrArray', cursor: 'string', limit: 'int', since: 'string' },
  'proposal-apply': { ...FENCE, id: 'int', revision: 'int' },
  'proposal-reject': { ...FENCE, id: 'int', revision: 'int' },
  'proposal-revise': {
    ...FENCE,
    id: 'int',
    revision: 'int',
    row: 'int',
    subject: 'string',
    property: 'string',
    value: 'string',
    qualifiers: 'record',
  },
  'proposal-prune': { ...FENCE, id: 'int', revision: 'int', row: 'int' },
  'review-seen': {},
  audit: { force: 'bool', summary: 'bool', limit: 'int' },
  consolidate: { force: 'bool', summary: 'bool', limit: 'int' },
  key: { ref: 'string', value: 'string' },
  activity: {},
  sessions: { sessionIds: 'stringArray', limit: 'int' },
  facts: {
    cursor: 'string',
    limit: 'int',
    status: 'stringOrArray',
    evidence: 'stringArray',
    subject: 'string',
    text: 'string',
    session: 'string',
    scope: 'string',
  },
  fact: { id: 'int' },
  search: { query: 'string', limit: 'int' },
  'fact-update': {
    ...FENCE,
    id: 'int',
    subject: 'string',
    property: 'string',
    value: 'string',
    qualifiers: 'record',
    scope: 'string',
    validFrom: 'string',
    validTo: 'string',
  },
  'fact-expire': { ...FENCE, id: 'int' },
  'fact-restore': { ...FENCE, editId: 'int' },
  'fact-move': { ...FENCE, id: 'int', scope: 'string' },
  'fact-pin': { ...FENCE, id: 'int', pinned: 'bool', undoes: 'string' },
  'fact-forget': { ...FENCE, id: 'int', entityKey: 'string', property: 'string' },
  'fact-put-back': { ...FENCE, id: 'int' },
  'subject-rename': { ...FENCE, entityKey: 'string', to: 'string', dryRun: 'bool' },
  'property-rename': { ...FENCE, entityKey: 'string', property: 'string', to: 'string' },
  'alias-remove': { ...FENCE, id: 'int' },
  'fact-add': { ...FENCE, subject: 'string', property: 'string', value: 'string', multi: 'bool', scope: 'string' },
  entity: { subject: 'string', entityKey: 'string' },
  'subject-find': { name: 'string' },
  wipe: { ...FENCE, confirmToken: 'string' },
  graph: { view: 'string', scope: 'string', center: 'string' },
  extract: { text: 'string', dryRun: 'bool' },
  'extract-run': { id: 'int' },
  'extract-retry': { id: 'int' },
  queue: { limit: 'int' },
  calibrate: { pairs: 'stringArray' },
  'index-vectors': { force: 'bool' },
}

/** Field names of every verb, for cross-verb unknown fields. */
const ALL_FIELDS = [...new Set(Object.values(KNOWN_FIELDS).flatMap((fields) => Object.keys(fields)))]

/** Keys that poke at prototypes. */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
]

/** Values that are wrong for a field of each kind, whatever its range (all schemas' integers are whole and >= 0). */
const WRONG: Readonly<Record<FieldKind, readonly unknown[]>> = {
  int: [
    '1',
    'NaN',
    'Infinity',
    '-Infinity',
    '1e309',
    '0x10',
    '',
    ' 1',
    '١',
    true,
    false,
    null,
    [1],
    { value: 1 },
    1.5,
    -1,
    -7.25,
    1e300,
    2 ** 53 + 2,
  ],
  bool: ['true', 'false', 'yes', 1, 0, null, [], [true], {}, 'NaN'],
  string: [0, 1, -1, 1.5, 1e21, true, false, null, [], ['x'], {}, { text: 'x' }],
  stringOrArray: [0, 7, true, null, {}, { status: 'all' }, [1], [null], [[]]],
  stringArray: [0, true, null, {}, 'observed', 'session-1', [1], [null], [{}], [['x']]],
  record: [0, 'env=prod', true, null, 1.5, { env: 5 }, { env: null }, { env: ['prod'] }],
}

/** Strings that look like numbers or special values. */
const NAN_LIKE = [
  'NaN',
  '-NaN',
  'Infinity',
  '-Infinity',
  'undefined',
  'null',
  '1e309',
  '-0',
  '0x1F',
  '0b101',
  '1_000',
  '١٢٣',
  '+1',
  '.5',
  '5.',
  '',
]

/** What the fuzzer knows about the live store, to make poisoned bodies otherwise plausible. */
export interface FuzzContext {
  readonly generation: number
  readonly factIds: readonly number[]
  readonly proposalIds: readonly number[]
}

/** A body to send and what the fuzzer made it as. */
export interface FuzzBody {
  readonly kind:
    | 'value'
    | 'random-object'
    | 'wrong-type'
    | 'unknown-field'
    | 'huge'
    | 'prototype'
    | 'deep'
    | 'malformed'
    | 'invalid-utf8'
    | 'empty'
  readonly bytes: Buffer
}

/**
 * Make one random body for a verb.
 * @param rng - the seeded PRNG.
 * @param verb - the verb it is for.
 * @param context - live ids and generation, for plausible fields.
 * @returns the body bytes and its kind.
 */
export function fuzzBody(rng: Rng, verb: string, context: FuzzContext): FuzzBody {
  const roll = rng.next()
  if (roll < 0.1) return text('value', JSON.stringify(randomNonObject(rng, 3)))
  if (roll < 0.22)
    return text('random-object', objectText(rng, randomEntries(rng, verb, 1 + rng.int(6)), unknownPoison(rng, verb)))
  if (roll < 0.45)
    return text('wrong-type', objectText(rng, plausibleEntries(rng, verb, context), wrongTypePoison(rng, verb)))
  if (roll < 0.58)
    return text('unknown-field', objectText(rng, plausibleEntries(rng, verb, context), unknownPoison(rng, verb)))
  if (roll < 0.68) return huge(rng, verb, context)
  if (roll < 0.76) {
    const entries: [string, unknown][] = [
      ...plausibleEntries(rng, verb, context),
      [rng.pick(PROTOTYPE_KEYS), randomValue(rng, 2)],
    ]
    if (rng.chance(0.5)) entries.push([rng.pick(PROTOTYPE_KEYS), { force: true, summary: true, id: 1, isAdmin: true }])
    return text(
      'prototype',
      objectText(rng, entries, rng.chance(0.5) ? unknownPoison(rng, verb) : wrongTypePoison(rng, verb)),
    )
  }
  if (roll < 0.8) return deep(rng, verb)
  if (roll < 0.9) return malformed(rng, verb, context)
  if (roll < 0.96) return invalidUtf8(rng, verb, context)
  return { kind: 'empty', bytes: Buffer.alloc(0) }
}

function text(kind: FuzzBody['kind'], body: string): FuzzBody {
  return { kind, bytes: Buffer.from(body, 'utf8') }
}

/** Serialize entries as a JSON object (keys may be anything, including __proto__), poison last. */
function objectText(
  rng: Rng,
  entries: readonly (readonly [string, unknown])[],
  poison: readonly [string, unknown],
): string {
  const seen = new Set<string>([poison[0]])
  const unique = entries.filter(([key]) => (seen.has(key) ? false : (seen.add(key), true)))
  const all = [...unique, poison]
  const space = rng.chance(0.2) ? ' ' : ''
  return `{${space}${all.map(([key, value]) => `${JSON.stringify(key)}:${space}${JSON.stringify(value)}`).join(`,${space}`)}${space}}`
}

/** A field this verb does not have. */
function unknownKey(rng: Rng, verb: string): string {
  const known = KNOWN_FIELDS[verb] ?? {}
  for (;;) {
    const roll = rng.next()
    const key =
      roll < 0.35
        ? rng.pick(ALL_FIELDS)
        : roll < 0.5
          ? rng.pick([
              '',
              ' ',
              'ID',
              'Id',
              'id ',
              'operationid',
              'expected_generation',
              'OperationId',
              '0',
              '-1',
              'null',
              'true',
            ])
          : roll < 0.6
            ? 'k'.repeat(1 + rng.int(3000))
            : randomString(rng, 1 + rng.int(24))
    if (!Object.hasOwn(known, key) && !PROTOTYPE_KEYS.includes(key)) return key
  }
}

function unknownPoison(rng: Rng, verb: string): [string, unknown] {
  return [unknownKey(rng, verb), randomValue(rng, 2)]
}

/** A known field with a value of the wrong type, or an unknown field for a verb without known fields. */
function wrongTypePoison(rng: Rng, verb: string): [string, unknown] {
  const fields = Object.entries(KNOWN_FIELDS[verb] ?? {})
  if (fields.length === 0) return unknownPoison(rng, verb)
  const [key, kind] = rng.pick(fields)
  const value = kind === 'int' && rng.chance(0.3) ? rng.pick(NAN_LIKE) : rng.pick(WRONG[kind])
  return [key, value]
}

/** Some of the verb's known fields with plausible (often valid) values. */
function plausibleEntries(rng: Rng, verb: string, context: FuzzContext): [string, unknown][] {
  const fields = Object.keys(KNOWN_FIELDS[verb] ?? { force: 'bool', text: 'string' })
  return fields.filter(() => rng.chance(0.75)).map((key) => [key, plausible(rng, key, context)])
}

function plausible(rng: Rng, key: string, context: FuzzContext): unknown {
  switch (key) {
    case 'expectedGeneration':
      return rng.chance(0.8) ? context.generation : rng.int(context.generation + 3)
    case 'operationId':
      return `fuzz-${rng.int(1e9).toString(36)}-${rng.int(1e9).toString(36)}`
    case 'id':
    case 'keepFactId':
      return rng.chance(0.5) ? rng.pick(context.factIds) : rng.pick(context.proposalIds)
    case 'editId':
    case 'groupId':
      return 1 + rng.int(5)
    case 'revision':
      return 1
    case 'row':
      return rng.int(2)
    case 'limit':
      return 1 + rng.int(50)
    case 'force':
    case 'summary':
    case 'backup':
      return rng.chance(0.5)
    case 'subject':
      return rng.pick(['deploys', 'api server', 'kettle', '灯塔'])
    case 'entityKey':
      return rng.pick(['deploys', 'api server'])
    case 'property':
      return rng.pick(['port', 'release day', 'colour'])
    case 'value':
      return rng.pick(['7803', 'Wednesday', 'blue'])
    case 'qualifiers':
      return { env: 'prod' }
    case 'scope':
      return 'global'
    case 'validFrom':
      return '2026-01-01'
    case 'validTo':
      return '2031-01-01'
    case 'path':
      return rng.pick(['exports/facts.jsonl', '../memory.db', 'backups'])
    case 'content':
      return `${JSON.stringify({ subject: 'fuzz', property: 'probe', value: 'x' })}\n`
    case 'mode':
      return rng.pick(['preview', 'commit'])
    case 'token':
    case 'confirmToken':
      return randomString(rng, 24)
    case 'cursor':
      return String(rng.int(100))
    case 'status':
      return rng.pick(['current', 'all', 'history', 'pending', ['active'], ['conflict', 'expired']])
    case 'evidence':
      return ['observed']
    case 'text':
      return rng.pick(['port', 'Tuesday', '"unbalanced', 'NEAR(a b)'])
    case 'sessionIds':
      return ['session-1']
    case 'session':
      return 'session-1'
    case 'view':
      return rng.pick(['nebula', 'tree'])
    case 'center':
      return rng.pick(['deploys', 'api server'])
    case 'ref':
      return rng.pick(['llm', 'embedding', 'rerank'])
    default:
      return randomValue(rng, 1)
  }
}

/** Random fields, known or not, with random values; the poison is added by the caller. */
function randomEntries(rng: Rng, verb: string, count: number): [string, unknown][] {
  const fields = Object.keys(KNOWN_FIELDS[verb] ?? {})
  return Array.from({ length: count }, () => [
    rng.chance(0.4) && fields.length > 0 ? rng.pick(fields) : unknownKey(rng, verb),
    randomValue(rng, 3),
  ])
}

/** A known string field (or any field) holding a huge string: up to 200 KB, often past the body cap. */
function huge(rng: Rng, verb: string, context: FuzzContext): FuzzBody {
  const strings = Object.entries(KNOWN_FIELDS[verb] ?? {})
    .filter(([, kind]) => kind === 'string')
    .map(([key]) => key)
  const key = strings.length > 0 && rng.chance(0.7) ? rng.pick(strings) : unknownKey(rng, verb)
  const size = Math.floor(2 ** (10 + rng.next() * 7.64)) // 1 KiB … 200 KiB
  const unit = rng.pick(['a', 'é', '灯', '😀', '\\', '"', ' ', '\u0000', '\ud800'])
  const value = unit.repeat(Math.max(1, Math.floor(size / Buffer.byteLength(unit))))
  const entries: [string, unknown][] = [...plausibleEntries(rng, verb, context), [key, value]]
  const poison = rng.chance(0.5) ? unknownPoison(rng, verb) : wrongTypePoison(rng, verb)
  return text('huge', objectText(rng, entries, poison[0] === key ? unknownPoison(rng, verb) : poison))
}

/** Deeply nested arrays or objects, at the top level (not an object) or inside a poison field. */
function deep(rng: Rng, verb: string): FuzzBody {
  const depth = 100 + rng.int(15_000)
  if (rng.chance(0.5)) return text('deep', `${'['.repeat(depth)}${']'.repeat(depth)}`)
  const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
  return text('deep', `{${JSON.stringify(unknownKey(rng, verb))}:${nested}}`)
}

/** Text that is not JSON: truncated objects, JavaScript-isms, stray tokens. */
function malformed(rng: Rng, verb: string, context: FuzzContext): FuzzBody {
  const valid = objectText(rng, plausibleEntries(rng, verb, context), wrongTypePoison(rng, verb))
  const candidates = [
    valid.slice(0, Math.max(1, rng.int(valid.length - 1))),
    valid.replace(/\}$/u, ',}'),
    valid.replace(/"/gu, "'"),
    valid.replace(/:/u, '='),
    `${valid}}`,
    `${valid}${valid}`,
    `{${rng.pick(['force', 'id', 'a'])}: 1}`,
    `{"id": ${rng.pick(['NaN', 'Infinity', '-Infinity', 'undefined', '0x10', '01', '1.', '.5', '+1', '1e'])}}`,
    '{"a": 1 /* comment */}',
    '{"a": "unterminated',
    '{"a": "bad \\x escape"}',
    '{"a": "\\ud800\\u"}',
    '{"a":\u00a01}',
    '\u0000{}',
    `${'['.repeat(1 + rng.int(60_000))}`,
    randomString(rng, 1 + rng.int(200)),
  ]
  for (;;) {
    const candidate = rng.pick(candidates)
    if (!parses(candidate)) return text('malformed', candidate)
  }
}

/** A JSON-ish body with bytes that are not UTF-8. */
function invalidUtf8(rng: Rng, verb: string, context: FuzzContext): FuzzBody {
  const base = Buffer.from(objectText(rng, plausibleEntries(rng, verb, context), unknownPoison(rng, verb)), 'utf8')
  const bad = rng.pick([
    [0xff],
    [0xfe, 0xff],
    [0xc3, 0x28],
    [0xc0, 0x80],
    [0xed, 0xa0, 0x80],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
    [0xe2, 0x82],
    [0x80],
    [0xf4, 0x90, 0x80, 0x80],
  ])
  // Inside a string value when there is one, else anywhere.
  const quote = base.indexOf(0x22, 1)
  const at = quote > 0 && rng.chance(0.7) ? quote + 1 : rng.int(base.length + 1)
  const bytes = Buffer.concat([base.subarray(0, at), Buffer.from(bad), base.subarray(at)])
  if (utf8(bytes)) throw new Error('generated valid UTF-8')
  return { kind: 'invalid-utf8', bytes }
}

function parses(candidate: string): boolean {
  try {
    JSON.parse(candidate)
    return true
  } catch {
    return false
  }
}

function utf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

/** Any JSON value but an object at the top. */
function randomNonObject(rng: Rng, depth: number): unknown {
  for (;;) {
    const value = randomValue(rng, depth)
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  }
}

/** A random JSON value. */
export function randomValue(rng: Rng, depth: number): unknown {
  const roll = rng.int(depth > 0 ? 10 : 7)
  switch (roll) {
    case 0:
      return null
    case 1:
      return rng.chance(0.5)
    case 2:
      return rng.pick([
        0,
        -0,
        1,
        -1,
        0.5,
        1e308,
        -1e308,
        2 ** 53,
        2 ** 53 + 1,
        Number.MIN_VALUE,
        rng.int(1e6),
        -rng.int(1e6) / 7,
      ])
    case 3:
      return rng.pick(NAN_LIKE)
    case 4:
    case 5:
      return randomString(rng, rng.int(40))
    case 6:
      return rng.pick([
        '',
        ' ',
        '\u0000',
        '\n',
        '\ud800',
        '\udfff\ud800',
        '😀',
        '<script>',
        '../../etc/passwd',
        '%00',
        '${7*7}',
        '{{7*7}}',
      ])
    case 7:
    case 8:
      return Array.from({ length: rng.int(5) }, () => randomValue(rng, depth - 1))
    default: {
      const object: Record<string, unknown> = Object.create(null) as Record<string, unknown>
      for (let index = rng.int(5); index > 0; index -= 1) {
        object[rng.chance(0.2) ? rng.pick(PROTOTYPE_KEYS) : randomString(rng, 1 + rng.int(10))] = randomValue(
          rng,
          depth - 1,
        )
      }
      return object
    }
  }
}

const ALPHABET =
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/ \t"\\\'{}[],é灯😀\u0000\u0007\u007f\u2028\ufeff'

function randomString(rng: Rng, length: number): string {
  const chars = [...ALPHABET]
  let out = ''
  for (let index = 0; index < length; index += 1) out += rng.pick(chars)
  return out
}
