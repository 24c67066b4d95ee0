/** Verbs whose features arrive in later versions: they exist, validate their body, and answer unavailable. */
import { refuse, verb, type VerbDefinition } from './verb.ts'
import { laterBody } from './wire.schema.ts'

const FEATURE: Readonly<Record<string, string>> = {
  'index-vectors': 'the semantic index',
}

/** One unavailable verb per later feature. */
export const laterVerbs: Readonly<Record<string, VerbDefinition>> = Object.fromEntries(Object.entries(FEATURE).map(([name, feature]) => [
  name,
  verb({
    schema: laterBody,
    storeless: true,
    run: () => refuse('unavailable', `${feature} is not active in this version of dsh-fact-memory`),
  }),
]))
