/**
 * Project scope where the model and the capture paths meet it, in process on a real store (one binding) with real
 * git repositories in temporary folders: memory_write's scope "project" (and its refusal without a working
 * directory), memory_search's marks from another project against the tool's own output schema, the extraction
 * answer's scope "project", the rule path, which scopes a statement to the project only when it names it, and
 * memory_forget by subject, which leaves other projects' facts alone and says how many it left, per project.
 */
import assert from 'node:assert/strict'
import { mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { AutoCapture } from '../src/extract/capture.ts'
import type { ExtractionModel, ModelRequest } from '../src/host/model-client.ts'
import type { ExtractSessionView, OutputSchema, ToolCall, ToolSpec } from '../src/host/ports.ts'
import type { SearchValue } from '../src/retrieval/render.ts'
import { memoryForgetTool, type ForgetValue } from '../src/tools/memory-forget.ts'
import { memorySearchTool } from '../src/tools/memory-search.ts'
import { memoryWriteTool, type WriteValue } from '../src/tools/memory-write.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { turnEnd, turnStart, userSays } from './helpers/session-events.ts'
import { ONE_DRIVER, openMemory, removeDir, tempDir, type MemoryHandle } from './helpers/store.ts'

/** A live session in a working directory, announcing each event to capture as the host's session/event does. */
class LiveSession implements ExtractSessionView {
  readonly events: SessionEvent[] = []
  readonly header: { readonly cwd?: string }
  readonly id: string
  private readonly capture: (() => AutoCapture) | undefined

  constructor(id: string, cwd: string | undefined, capture?: () => AutoCapture) {
    this.id = id
    this.header = cwd === undefined ? {} : { cwd }
    this.capture = capture
  }

  requestHeader() {
    return { config: { provider: 'fake', model: 'extractor' } }
  }

  append(build: (seq: number) => SessionEvent): number {
    const event = build(this.events.length)
    this.events.push(event)
    this.capture?.().onEvent(this, event)
    return event.seq
  }

  turn(turn: number, user: string): number {
    this.append((seq) => turnStart(seq, turn))
    this.append((seq) => userSays(seq, user))
    return this.append((seq) => turnEnd(seq, turn))
  }
}

class ScriptedModel implements ExtractionModel {
  readonly name = 'fake/extractor'
  readonly requests: ModelRequest[] = []
  readonly answers: string[] = []
  async complete(request: ModelRequest) {
    this.requests.push(request)
    const text = this.answers.shift()
    return text === undefined ? { ok: false as const, error: 'no scripted answer' } : { ok: true as const, text }
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i += 1) await new Promise((resolve) => setImmediate(resolve))
}

/**
 * Check a value against the enforced JSON Schema subset the host validates tool values with.
 * @returns the problems found, by path.
 */
function schemaProblems(schema: OutputSchema, value: unknown, path = '$'): string[] {
  if (schema.oneOf !== undefined) {
    return schema.oneOf.some((option) => schemaProblems(option, value, path).length === 0)
      ? []
      : [`${path}: matches no option`]
  }
  const kind =
    value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value
  if (schema.type !== undefined && schema.type !== kind && !(schema.type === 'number' && kind === 'integer'))
    return [`${path}: ${kind}, not ${schema.type}`]
  if (schema.enum !== undefined && !schema.enum.includes(value as string))
    return [`${path}: ${String(value)} is not allowed`]
  const problems: string[] = []
  if (kind === 'object' && schema.properties !== undefined) {
    const record = value as Record<string, unknown>
    for (const key of schema.required ?? []) if (!(key in record)) problems.push(`${path}.${key}: missing`)
    for (const [key, child] of Object.entries(schema.properties))
      if (key in record) problems.push(...schemaProblems(child, record[key], `${path}.${key}`))
  }
  if (kind === 'array' && schema.items !== undefined)
    (value as unknown[]).forEach((item, index) =>
      problems.push(...schemaProblems(schema.items as OutputSchema, item, `${path}[${index}]`)),
    )
  return problems
}

let root: string
let billing: string
let shop: string
before(() => {
  root = realpathSync(tempDir('fact-memory-projects-'))
  billing = join(root, 'billing-api')
  shop = join(root, 'shop-web')
  for (const repo of [billing, shop]) mkdirSync(join(repo, '.git'), { recursive: true })
  mkdirSync(join(billing, 'src'), { recursive: true })
})
after(() => {
  removeDir(root)
})

for (const driver of ONE_DRIVER) {
  describe(`the memory tools by project (${driver})`, () => {
    let h: MemoryHandle
    let writeTool: ToolSpec
    let searchTool: ToolSpec
    beforeEach(() => {
      h = openMemory(driver, new FakeClock())
      const deps = { memory: h.memory, config: () => h.config }
      writeTool = memoryWriteTool(deps)
      searchTool = memorySearchTool(deps)
    })
    afterEach(() => {
      h.dispose()
    })

    const call = (cwd: string | undefined): ToolCall => ({
      callId: 'call-1',
      signal: new AbortController().signal,
      agent: { id: 'agent-1', session: new LiveSession('session-1', cwd) },
    })
    const writeIn = async (cwd: string | undefined, args: Record<string, unknown>): Promise<WriteValue> =>
      (await writeTool.execute(
        { subject: 'dev server', property: 'port', value: '5173', ...args },
        call(cwd),
      )) as WriteValue

    it('writes scope "project" to the repository the session works in, from a subfolder too', async () => {
      const saved = await writeIn(join(billing, 'src'), { scope: 'project' })
      assert.equal(saved.outcome, 'saved', saved.message)
      assert.match(saved.message, /dev server · port = 5173 \(project billing-api\)/u)
      assert.doesNotMatch(
        saved.message,
        new RegExp(root.replaceAll('/', '\\/'), 'u'),
        'the answer names the project, not its path',
      )
      const row = h.db().get('SELECT scope FROM facts WHERE id = ?', saved.factId)
      assert.equal(row?.['scope'], `project:${billing}`)
    })

    it('keeps global the default, and a free-text label a label', async () => {
      const global = await writeIn(billing, { property: 'host', value: 'localhost' })
      const labelled = await writeIn(billing, { property: 'region', value: 'eu-west-1', scope: 'infra' })
      assert.deepEqual(
        h
          .db()
          .all('SELECT scope FROM facts ORDER BY id')
          .map((row) => row['scope']),
        ['global', 'infra'],
      )
      assert.equal(global.outcome, 'saved')
      assert.equal(labelled.outcome, 'saved')
    })

    it('refuses scope "project" in a session without a working directory, and stores nothing', async () => {
      const generation = h.memory.status().generation
      const refused = await writeIn(undefined, { scope: 'project' })
      assert.equal(refused.outcome, 'refused')
      assert.match(refused.message, /scope "project" needs the session's working directory.*Nothing was stored\./u)
      assert.equal(h.memory.status().generation, generation)
      const typed = await writeIn(billing, { scope: `project:${shop}` })
      assert.equal(typed.outcome, 'refused')
      assert.match(typed.message, /cannot start with "project:"/u)
    })

    it('finds from one repository a fact of another, marked with its name, in a value the output schema accepts', async () => {
      await writeIn(billing, { subject: 'billing-api', property: 'port', value: '8123', scope: 'project' })
      await writeIn(shop, { value: '3000', scope: 'project' })
      const value = (await searchTool.execute({ query: 'port' }, call(shop))) as SearchValue
      assert.deepEqual(schemaProblems(searchTool.output.schema, value), [])
      assert.deepEqual(
        value.results.map((result) => [result.subject, result.project, result.otherProject]),
        [
          ['dev server', 'shop-web', false],
          ['billing-api', 'billing-api', true],
        ],
      )
      const [text] = searchTool.output.render({}, value as never)
      assert.match(text?.text ?? '', /2\. billing-api · port \(another project: billing-api\): 8123/u)
    })
  })

  describe(`memory_forget by project (${driver})`, () => {
    let h: MemoryHandle
    beforeEach(() => {
      h = openMemory(driver, new FakeClock())
    })
    afterEach(() => {
      h.dispose()
    })

    it("forgets a subject's global facts and this project's, never another project's", async () => {
      const deps = { memory: h.memory, config: () => h.config }
      const session = (cwd: string | undefined): ToolCall => ({
        callId: 'call-1',
        signal: new AbortController().signal,
        agent: { id: 'agent-1', session: new LiveSession('session-1', cwd) },
      })
      const writeTool = memoryWriteTool(deps)
      for (const [cwd, value, scope] of [
        [billing, '5173', 'project'],
        [shop, '3000', 'project'],
        [shop, '8080', undefined],
      ] as const) {
        await writeTool.execute(
          {
            subject: 'dev server',
            property: scope === undefined ? 'proxy port' : 'port',
            value,
            ...(scope === undefined ? {} : { scope }),
          },
          session(cwd),
        )
      }
      const tool = memoryForgetTool(deps)
      const forgot = (await tool.execute({ subject: 'dev server' }, session(shop))) as ForgetValue
      assert.equal(forgot.outcome, 'ok')
      assert.deepEqual(forgot.forgotten.map((fact) => fact.value).sort(), ['3000', '8080'])
      // The answer names what it reached and what the other repository still holds, by name, in the tool's own schema.
      assert.deepEqual(forgot.reached, ['global', 'labels', 'project shop-web'])
      assert.deepEqual(forgot.untouched, [{ project: 'billing-api', facts: 1 }])
      assert.deepEqual(schemaProblems(tool.output?.schema ?? {}, forgot), [])
      assert.deepEqual(
        h
          .db()
          .all(`SELECT value FROM facts WHERE status = 'active'`)
          .map((row) => row['value']),
        ['5173'],
      )
      const outside = (await memoryForgetTool(deps).execute({ subject: 'dev server' }, session(undefined))) as {
        outcome: string
      }
      assert.equal(outside.outcome, 'not_found', "outside a project, no project's fact is forgotten by subject")
    })
  })

  describe(`automatic capture by project (${driver})`, () => {
    let h: MemoryHandle
    let model: ScriptedModel
    let capture: AutoCapture
    beforeEach(() => {
      h = openMemory(driver, new FakeClock())
      model = new ScriptedModel()
      capture = new AutoCapture({
        clock: h.clock,
        logger: { info: () => undefined, warn: () => undefined },
        memory: h.memory,
        config: () => h.config,
        model: async () => model,
        session: async (sessionId) => ({ unavailable: `no session ${sessionId} in this test` }),
      })
    })
    afterEach(() => {
      capture.stop()
      h.dispose()
    })
    const scopes = () =>
      h
        .db()
        .all(`SELECT subject, scope FROM facts WHERE status <> 'forgotten' ORDER BY id`)
        .map((row) => [row['subject'], row['scope']])

    it("rules: a statement naming the project's folder is the project's; any other stays global", async () => {
      h.reconfigure({ autoCapture: true })
      const live = new LiveSession('session-r', join(billing, 'src'), () => capture)
      live.turn(1, 'Remember that the billing-api dev server runs on port 8123.')
      live.turn(2, 'Remember that the staging host is db-2.')
      await settle()
      assert.deepEqual(
        scopes().map(([, scope]) => scope),
        [`project:${billing}`, 'global'],
      )
    })

    it("rules: outside a repository the folder's name is nothing a statement names, so a home folder does not take the user's own facts", async () => {
      h.reconfigure({ autoCapture: true })
      const home = join(root, 'alice')
      mkdirSync(home, { recursive: true })
      const live = new LiveSession('session-h', home, () => capture)
      live.turn(1, 'Remember that Alice prefers tabs over spaces.')
      await settle()
      assert.deepEqual(
        scopes().map(([, scope]) => scope),
        ['global'],
      )
    })

    it('model: a candidate scoped "project" lands in the session\'s project; without a working directory, global', async () => {
      h.reconfigure({ autoExtract: true, extractDelayMs: 0 })
      const answer = JSON.stringify({
        facts: [
          {
            subject: 'test command',
            property: 'value',
            value: 'pnpm vitest',
            quote: 'we run tests with pnpm vitest',
            confidence: 0.9,
            scope: 'project',
          },
          { subject: 'user', property: 'editor', value: 'helix', quote: 'I use helix', confidence: 0.9 },
        ],
      })
      model.answers.push(answer, answer)
      new LiveSession('session-m', shop, () => capture).turn(
        1,
        'Remember: we run tests with pnpm vitest, and I use helix everywhere.',
      )
      await settle()
      h.clock.advance(10)
      await settle()
      assert.deepEqual(scopes(), [
        ['test command', `project:${shop}`],
        ['user', 'global'],
      ])
      new LiveSession('session-n', undefined, () => capture).turn(
        1,
        'Remember: we run tests with pnpm vitest, and I use helix everywhere.',
      )
      await settle()
      h.clock.advance(10)
      await settle()
      assert.deepEqual(
        scopes()
          .map(([subject, scope]) => `${String(subject)}@${String(scope)}`)
          .sort(),
        ['test command@global', `test command@project:${shop}`, 'user@global'],
      )
    })
  })
}
