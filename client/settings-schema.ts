/**
 * Pure reading of the settings schema the host serves (schemastery's `toJSON()` envelope, `{uid, refs}`): the
 * plugin's Config is an intersection of object sections; each becomes a titled section of typed fields. The first
 * section holds `enabled` alone, the section described "Advanced" is folded.
 */

/** One field of the card. */
export interface SettingsField {
  readonly key: string
  readonly kind: 'boolean' | 'number' | 'string' | 'enum'
  readonly description: string
  readonly defaultValue: unknown
  readonly min: number | undefined
  readonly max: number | undefined
  readonly step: number | undefined
  readonly options: readonly string[]
  /** `credential-ref` fields name a key in the host credential store. */
  readonly role: string | undefined
}

/** One section of the card. */
export interface SettingsSection {
  readonly title: string
  readonly folded: boolean
  readonly fields: readonly SettingsField[]
}

interface Node {
  readonly type?: string
  readonly meta?: {
    readonly description?: unknown
    readonly collapse?: unknown
    readonly default?: unknown
    readonly min?: unknown
    readonly max?: unknown
    readonly step?: unknown
    readonly role?: unknown
  }
  readonly dict?: Readonly<Record<string, number>>
  readonly list?: readonly number[]
  readonly value?: unknown
}

/**
 * Read the envelope into sections.
 * @param envelope - the served schema (`{uid, refs}`), or anything else.
 * @returns the sections, or [] when the shape is not understood.
 */
export function readSettingsSchema(envelope: unknown): SettingsSection[] {
  const { uid, refs } = (envelope ?? {}) as { uid?: unknown; refs?: Readonly<Record<string, Node>> }
  if (refs === undefined || (typeof uid !== 'number' && typeof uid !== 'string')) return []
  const root = refs[String(uid)]
  const objects = root?.type === 'intersect' ? (root.list ?? []).map((id) => refs[String(id)]) : [root]
  return objects.flatMap((object, index) => {
    if (object?.type !== 'object' || object.dict === undefined) return []
    const description = typeof object.meta?.description === 'string' ? object.meta.description : ''
    const title = description !== '' ? description : index === 0 ? 'Master switch' : 'Settings'
    const fields = Object.entries(object.dict).flatMap(([key, id]) => {
      const field = readField(key, refs[String(id)], refs)
      return field === undefined ? [] : [field]
    })
    return [{ title, folded: object.meta?.collapse === true, fields }]
  })
}

function readField(
  key: string,
  node: Node | undefined,
  refs: Readonly<Record<string, Node>>,
): SettingsField | undefined {
  if (node === undefined) return undefined
  const meta = node.meta ?? {}
  const base = {
    key,
    description: typeof meta.description === 'string' ? meta.description : '',
    defaultValue: meta.default,
    min: typeof meta.min === 'number' ? meta.min : undefined,
    max: typeof meta.max === 'number' ? meta.max : undefined,
    step: typeof meta.step === 'number' ? meta.step : undefined,
    role: typeof meta.role === 'string' ? meta.role : undefined,
    options: [] as string[],
  }
  switch (node.type) {
    case 'boolean':
      return { ...base, kind: 'boolean' }
    case 'number':
    case 'natural':
      return { ...base, kind: 'number' }
    case 'string':
      return { ...base, kind: 'string' }
    case 'union': {
      const options = (node.list ?? [])
        .map((id) => refs[String(id)])
        .filter((option) => option?.type === 'const')
        .map((option) => String(option?.value))
      return { ...base, kind: 'enum', options }
    }
    default:
      return undefined
  }
}

/** Words a key spells in capitals, and words that read better spelled out. */
const WORDS: Readonly<Record<string, string>> = {
  llm: 'LLM',
  api: 'API',
  url: 'URL',
  id: 'ID',
  fts: 'FTS',
  ttl: 'TTL',
  ms: '(ms)',
  dir: 'folder',
  env: 'variable',
  dim: 'dimensions',
}

/**
 * A key as a person reads it: camelCase split into words, the first capitalised, acronyms in capitals
 * ("llmApiKeyEnv" → "LLM API key variable", "dataDir" → "Data folder", "auditIntervalMs" → "Audit interval (ms)").
 * @param key - the config key.
 * @returns its label.
 */
export function humanLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/gu, '$1 $2')
    .split(' ')
    .map((word) => word.toLowerCase())
  const shown = words.map((word) => WORDS[word] ?? word)
  const first = shown[0] ?? ''
  return [first.charAt(0).toUpperCase() + first.slice(1), ...shown.slice(1)].join(' ')
}
