/**
 * What memory_write and memory_forget repeat back from their arguments, on a real store (one binding): a key given
 * as a subject, a property, a value, a qualifier or an unknown field's name is masked in every answer (not found,
 * refused, stored), in the value the host keeps and the text the model reads; an ordinary argument is repeated as
 * given.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { ToolCall, ToolSpec } from '../src/host/ports.ts'
import { memoryForgetTool, type ForgetValue } from '../src/tools/memory-forget.ts'
import { memoryWriteTool, type WriteValue } from '../src/tools/memory-write.ts'
import { MASK } from '../src/text/privacy.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { ONE_DRIVER, openMemory, type MemoryHandle } from './helpers/store.ts'

const TAIL = 'Q7vR2mXk9LpT4wZs8NbY3cHd6F-jG1aUe5KqW0_y'
const KEY = `sk-proj-${TAIL}`
const call: ToolCall = { callId: 'call-1', signal: new AbortController().signal }

/** Whether a text holds the key or any twelve characters in a row of its random part. */
function holdsKey(text: string): boolean {
  if (text.includes(KEY)) return true
  for (let at = 0; at + 12 <= TAIL.length; at += 1) if (text.includes(TAIL.slice(at, at + 12))) return true
  return false
}

/** Everything the model and the host can see of an answer: the value and the rendered text. */
function seen(tool: ToolSpec, args: unknown, value: unknown): string {
  return `${JSON.stringify(value)}\n${tool.output
    .render(args, value as never)
    .map((block) => block.text)
    .join('\n')}`
}

for (const driver of ONE_DRIVER) {
  describe(`tool answers mask what they repeat of their arguments (${driver})`, () => {
    let h: MemoryHandle
    let writeTool: ToolSpec
    let forgetTool: ToolSpec
    beforeEach(() => {
      h = openMemory(driver, new FakeClock())
      const deps = { memory: h.memory, config: () => h.config }
      writeTool = memoryWriteTool(deps)
      forgetTool = memoryForgetTool(deps)
    })
    afterEach(() => {
      h.dispose()
    })

    const forget = async (args: Record<string, unknown>): Promise<{ value: ForgetValue; text: string }> => {
      const value = (await forgetTool.execute(args, call)) as ForgetValue
      return { value, text: seen(forgetTool, args, value) }
    }
    const write = async (args: Record<string, unknown>): Promise<{ value: WriteValue; text: string }> => {
      const value = (await writeTool.execute(args, call)) as WriteValue
      return { value, text: seen(writeTool, args, value) }
    }

    it('memory_forget answers "not found" for a key given as property or subject without showing it', async () => {
      for (const args of [
        { subject: 'billing api', property: KEY },
        { subject: KEY },
        { subject: `deploy bot ${KEY}`, property: 'token' },
      ]) {
        const { value, text } = await forget(args)
        assert.equal(value.outcome, 'not_found', text)
        assert.equal(holdsKey(text), false, `the answer shows the key:\n${text}`)
        assert.ok(text.includes(MASK), `the answer says where the masked argument was:\n${text}`)
      }
    })

    it('memory_forget repeats an ordinary subject and property as given', async () => {
      const { value } = await forget({ subject: 'billing api', property: 'port' })
      assert.equal(value.outcome, 'not_found')
      assert.match(value.message, /"billing api · port"/u)
    })

    it('memory_forget refuses an unknown field named by a key without showing it', async () => {
      const { value, text } = await forget({ subject: 'billing api', [KEY]: 'x' })
      assert.equal(value.outcome, 'refused', text)
      assert.equal(holdsKey(text), false, `the answer shows the key:\n${text}`)
    })

    it('memory_write shows no key it was given in a subject, property, value, qualifier or field name, whatever its outcome', async () => {
      const calls: Record<string, unknown>[] = [
        { subject: `billing api ${KEY}`, property: 'client', value: 'openai-node' },
        { subject: 'billing api', property: `token ${KEY}`, value: 'rotated monthly' },
        { subject: 'billing api', property: 'openai key', value: KEY },
        { subject: 'billing api', property: 'note', value: `calls OpenAI with ${KEY}` },
        { subject: 'billing api', property: 'provider', value: 'OpenAI', qualifiers: { token: KEY } },
        { subject: 'billing api', property: 'provider', value: 'OpenAI', [KEY]: true },
      ]
      for (const args of calls) {
        const { text } = await write(args)
        assert.equal(holdsKey(text), false, `${JSON.stringify(Object.keys(args))} shows the key:\n${text}`)
      }
    })

    it('memory_write repeats an ordinary fact as given', async () => {
      const { value } = await write({ subject: 'billing api', property: 'port', value: '7801' })
      assert.equal(value.outcome, 'saved')
      assert.match(value.message, /billing api · port = 7801/u)
    })
  })
}
