/**
 * Each memory tool states its argument contract once, in zod: the parameters the model is shown are generated from
 * the same schema the call is parsed with. Every field is described for the model; nothing else is accepted; and a
 * value outside a limit the parameters state (a length, a range, an enum) is refused when the call is parsed. Each
 * tool's answer is stated once too: its output schema is generated from the zod schema of its value, in the host's
 * subset, and a refusal is a value that schema accepts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { z } from 'zod'
import type { ToolSpec } from '../src/host/ports.ts'
import { memoryForgetTool } from '../src/tools/memory-forget.ts'
import { memoryWriteTool } from '../src/tools/memory-write.ts'
import { memorySearchTool, type ToolDeps } from '../src/tools/memory-search.ts'
import { forgetArgs, searchArgs, writeArgs } from '../src/tools/tool-args.schema.ts'
import type { ResolvedConfig } from '../src/config.ts'
import type { OutputSchema, ToolCall } from '../src/host/ports.ts'
import { searchValueSchema } from '../src/retrieval/search-value.schema.ts'
import { toolOutputSchema } from '../src/tools/output-schema.ts'
import { forgetValueSchema, writeValueSchema } from '../src/tools/tool-values.schema.ts'

/** Building a tool reads nothing from its dependencies; only its definition is inspected here. */
const deps = {} as ToolDeps

interface PropertySchema {
  readonly type?: string
  readonly description?: string
  readonly maxLength?: number
  readonly maximum?: number
  readonly minimum?: number
  readonly enum?: readonly string[]
  readonly maxItems?: number
}

const TOOLS: readonly {
  readonly tool: ToolSpec
  readonly parse: z.ZodType
  readonly valid: Record<string, unknown>
}[] = [
  { tool: memorySearchTool(deps), parse: searchArgs, valid: { query: 'billing-api port' } },
  { tool: memoryWriteTool(deps), parse: writeArgs, valid: { subject: 'billing-api', property: 'port', value: '7801' } },
  { tool: memoryForgetTool(deps), parse: forgetArgs, valid: { subject: 'billing-api' } },
]

/** A value just past a property's stated limit, or undefined when it states none. */
function pastTheLimit(property: PropertySchema): unknown {
  if (property.maxLength !== undefined) return 'x'.repeat(property.maxLength + 1)
  if (property.enum !== undefined) return 'not-one-of-them'
  if (property.maximum !== undefined) return property.maximum + 1
  if (property.maxItems !== undefined) return Array.from({ length: property.maxItems + 1 }, (_, i) => `cue ${i}`)
  return undefined
}

describe('the memory tools state their contract once', () => {
  for (const { tool, parse, valid } of TOOLS) {
    it(`${tool.name}: every parameter is described, nothing else is taken, and every stated limit holds`, () => {
      const parameters = tool.parameters as {
        type?: string
        properties?: Record<string, PropertySchema>
        additionalProperties?: unknown
      }
      assert.equal(parameters.type, 'object')
      assert.equal(parameters.additionalProperties, false)
      assert.ok(!('$schema' in parameters), 'no dialect key: the host sends the parameters as they are')
      const properties = Object.entries(parameters.properties ?? {})
      assert.ok(properties.length > 0)
      assert.ok(parse.safeParse(valid).success, 'the valid call parses')
      assert.equal(parse.safeParse({ ...valid, unknown_field: 1 }).success, false, 'an unknown field is refused')
      for (const [key, property] of properties) {
        assert.ok((property.description ?? '').length >= 10, `${tool.name}.${key} is described for the model`)
        const over = pastTheLimit(property)
        if (over === undefined) continue
        const base =
          key === 'fact_id'
            ? {}
            : key === 'property' && tool.name === 'memory_forget'
              ? { subject: 'billing-api' }
              : valid
        assert.equal(
          parse.safeParse({ ...base, [key]: over }).success,
          false,
          `${tool.name}.${key} past its stated limit is refused`,
        )
      }
    })
  }
})

/** The keys of the JSON Schema subset the host enforces on a tool's value. */
const HOST_KEYS = new Set([
  'type',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'description',
])

/** Every key of a schema, nested ones included, that the host's subset does not have. */
function foreignKeys(schema: OutputSchema, path = '$'): string[] {
  return Object.entries(schema).flatMap(([key, value]): string[] => {
    if (!HOST_KEYS.has(key)) return [`${path}.${key}`]
    if (key === 'properties')
      return Object.entries(value as Record<string, OutputSchema>).flatMap(([name, child]) =>
        foreignKeys(child, `${path}.${name}`),
      )
    if (key === 'items') return foreignKeys(value as OutputSchema, `${path}[]`)
    if (key === 'oneOf')
      return (value as OutputSchema[]).flatMap((child, index) => foreignKeys(child, `${path}|${index}`))
    if (key === 'type' && typeof value !== 'string') return [`${path}.type is not one type`]
    return []
  })
}

/** A refusal needs no store: the arguments fail to parse first. */
const refusingDeps = { config: () => ({ displayTimeZone: 'UTC' }) as ResolvedConfig } as ToolDeps
const call = { agent: undefined } as unknown as ToolCall

describe('the memory tools state their answer once', () => {
  const VALUES = [
    { tool: memorySearchTool(refusingDeps), value: searchValueSchema },
    { tool: memoryWriteTool(refusingDeps), value: writeValueSchema },
    { tool: memoryForgetTool(refusingDeps), value: forgetValueSchema },
  ]
  for (const { tool, value } of VALUES) {
    it(`${tool.name}: the output schema is its value schema's, in the host's subset, and a refusal fits it`, async () => {
      const schema = tool.output?.schema
      assert.ok(schema !== undefined)
      assert.deepEqual(schema, toolOutputSchema(value))
      assert.deepEqual(foreignKeys(schema), [])
      assert.deepEqual(
        schema.required,
        Object.keys((value as z.ZodObject).shape),
        'every field of the value is required',
      )
      const refused = await tool.execute({ not_an_argument: true }, call)
      const parsed = value.safeParse(refused)
      assert.ok(parsed.success, JSON.stringify(parsed.error?.issues))
      assert.equal((refused as { outcome: string }).outcome, 'refused')
    })
  }
})
