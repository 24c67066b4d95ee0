/**
 * A tool's output schema, generated from the zod schema of its value: the JSON Schema zod writes, cut to the subset
 * the host enforces (type, properties, required, items, enum, oneOf, description). A nullable field becomes `oneOf`
 * the field or null; bounds, formats and closedness are left to the zod schema, which the tool's value is built to.
 */
import { z } from 'zod'
import type { OutputSchema } from '../host/ports.ts'

/** The fields of zod's JSON Schema this function reads. */
interface JsonSchema {
  readonly type?: string | readonly string[]
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: readonly string[]
  readonly items?: JsonSchema
  readonly enum?: readonly (string | number | boolean | null)[]
  readonly const?: string | number | boolean | null
  readonly anyOf?: readonly JsonSchema[]
  readonly oneOf?: readonly JsonSchema[]
  readonly description?: string
}

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'])

/**
 * The host's output schema for a tool value.
 * @param schema - the value's zod schema.
 * @returns the schema in the host's subset.
 */
export function toolOutputSchema(schema: z.ZodType): OutputSchema {
  return subset(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as JsonSchema)
}

function subset(schema: JsonSchema): OutputSchema {
  // A nullable scalar (`type: [t, 'null']`) is `oneOf` the scalar (with what describes it) or null.
  if (Array.isArray(schema.type)) {
    const [only, ...more] = schema.type.filter((type) => type !== 'null')
    if (only !== undefined && more.length === 0 && schema.type.includes('null'))
      return { oneOf: [subset({ ...schema, type: only }), { type: 'null' }] }
  }
  const options = schema.anyOf ?? schema.oneOf
  if (options !== undefined) return withDescription({ oneOf: options.map(subset) }, schema)
  const type =
    typeof schema.type === 'string' && TYPES.has(schema.type)
      ? (schema.type as NonNullable<OutputSchema['type']>)
      : undefined
  const values = schema.enum ?? (schema.const === undefined ? undefined : [schema.const])
  return withDescription(
    {
      ...(type === undefined ? {} : { type }),
      ...(values === undefined ? {} : { enum: [...values] }),
      ...(schema.properties === undefined
        ? {}
        : {
            properties: Object.fromEntries(
              Object.entries(schema.properties).map(([key, value]) => [key, subset(value)]),
            ),
          }),
      ...(schema.required === undefined || schema.properties === undefined ? {} : { required: [...schema.required] }),
      ...(schema.items === undefined ? {} : { items: subset(schema.items) }),
    },
    schema,
  )
}

function withDescription(out: OutputSchema, from: JsonSchema): OutputSchema {
  return from.description === undefined ? out : { ...out, description: from.description }
}
