/**
 * Each memory tool states its argument contract once, in zod: the parameters the model is shown are generated from
 * the same schema the call is parsed with. Every field is described for the model; nothing else is accepted; and a
 * value outside a limit the parameters state (a length, a range, an enum) is refused when the call is parsed.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { z } from 'zod'
import type { ToolSpec } from '../src/host/ports.ts'
import { memoryForgetTool } from '../src/tools/memory-forget.ts'
import { memoryWriteTool } from '../src/tools/memory-write.ts'
import { memorySearchTool, type ToolDeps } from '../src/tools/memory-search.ts'
import { forgetArgs, searchArgs, writeArgs } from '../src/tools/tool-args.schema.ts'

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

const TOOLS: readonly { readonly tool: ToolSpec; readonly parse: z.ZodType; readonly valid: Record<string, unknown> }[] = [
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
      const parameters = tool.parameters as { type?: string; properties?: Record<string, PropertySchema>; additionalProperties?: unknown }
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
        const base = key === 'fact_id' ? {} : key === 'property' && tool.name === 'memory_forget' ? { subject: 'billing-api' } : valid
        assert.equal(parse.safeParse({ ...base, [key]: over }).success, false, `${tool.name}.${key} past its stated limit is refused`)
      }
    })
  }
})
