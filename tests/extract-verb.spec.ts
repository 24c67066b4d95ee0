/**
 * The one-off extract verb's answer, in process on a real store (one binding) with a scripted model: every
 * credential a candidate carries, in its value, quote, qualifiers or any other field, is masked in the answer,
 * whether the candidate was refused, stored or only served by a dry run.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { extractText } from '../src/extract/manual.ts'
import type { ExtractionModel, ModelRequest } from '../src/host/model-client.ts'
import { MASK } from '../src/text/privacy.ts'
import { ONE_DRIVER } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const SECRET = 'sk-proj-4fJq9ZxT2mWv8LrN6bYc1HsD'
const TEXT = `Ops notes. The billing service calls OpenAI with the key ${SECRET} and the staging db password is Tr0ub4dor&3.`

class ScriptedModel implements ExtractionModel {
  readonly name = 'fake/extractor'
  readonly answers: string[] = []
  async complete(_request: ModelRequest) {
    const text = this.answers.shift()
    return text === undefined ? { ok: false as const, error: 'no scripted answer' } : { ok: true as const, text }
  }
}

/** A model answer proposing the secrets in every field a candidate has. */
const reply = (): string =>
  JSON.stringify({
    facts: [
      {
        subject: 'billing service',
        property: 'openai key',
        value: SECRET,
        quote: `The billing service calls OpenAI with the key ${SECRET}`,
        confidence: 0.95,
      },
      {
        subject: 'billing service',
        property: 'provider',
        value: 'OpenAI',
        qualifiers: { token: SECRET },
        quote: `The billing service calls OpenAI with the key ${SECRET}`,
        confidence: 0.95,
      },
      {
        subject: 'staging db',
        property: 'password',
        value: 'Tr0ub4dor&3',
        quote: 'the staging db password is Tr0ub4dor&3',
        confidence: 0.95,
      },
      {
        subject: 'billing service',
        property: 'note',
        value: `calls OpenAI with ${SECRET}`,
        quote: 'Ops notes.',
        confidence: 0.95,
      },
    ],
  })

for (const driver of ONE_DRIVER) {
  describe(`the extract verb's answer (${driver})`, () => {
    let v: VerbHarness
    let model: ScriptedModel
    beforeEach(() => {
      model = new ScriptedModel()
      v = verbHarness(
        driver,
        {},
        {
          extraction: (h, clock) => ({
            entries: () => [],
            settleBeforePause: () => undefined,
            pendingTurns: () => [],
            extractText: async (text, options) =>
              await extractText(text, options.dryRun, {
                memory: h.memory,
                config: h.config,
                model,
                clock,
                signal: new AbortController().signal,
              }),
            retryParked: async () => ({ ok: false, code: 'unavailable', message: 'no retries in this test' }),
          }),
        },
      )
    })
    afterEach(() => {
      v.dispose()
    })

    for (const dryRun of [true, false]) {
      it(`masks every credential in every field of the answer (${dryRun ? 'dry run' : 'written'})`, async () => {
        model.answers.push(reply())
        const answer = await v.ok('extract', { text: TEXT, dryRun })
        const shown = JSON.stringify(answer)
        for (const secret of [SECRET, '4fJq9ZxT2mWv8LrN6bYc1HsD', 'Tr0ub4dor&3'])
          assert.equal(shown.includes(secret), false, `${secret} in ${shown}`)
        const candidates = answer['candidates'] as {
          property: string
          value: string
          quote: string
          qualifiers?: Record<string, string>
        }[]
        assert.equal(candidates.length, 4, 'every candidate is still listed')
        assert.deepEqual(
          candidates.map((candidate) => candidate.value),
          [MASK, 'OpenAI', MASK, MASK],
        )
        assert.deepEqual(candidates[1]?.qualifiers, { token: MASK })
        assert.equal(
          candidates[0]?.quote,
          `The billing service calls OpenAI with the key ${MASK}`,
          'a quote keeps its words around the mask',
        )
      })
    }
  })
}
