/** Small builders for tool output schemas in the host's enforced JSON Schema subset. */
import type { OutputSchema } from '../host/ports.ts'

/**
 * A schema that also accepts null.
 * @param schema - the non-null schema.
 * @returns `oneOf` the schema or null.
 */
export function nullable(schema: OutputSchema): OutputSchema {
  return { oneOf: [schema, { type: 'null' }] }
}
