/**
 * Recall where developers work, as the model meets it: the real DSH rc.8 web host in a throwaway DSH home, the
 * scripted fake model on loopback, real git repositories (a billing service with a worktree and a second clone, a
 * web shop), and a library written to the real store before the host boots: each repository's facts, the user's,
 * newer personal facts past the directory's small budget, and one fact a version before repository keys stored
 * under the checkout's folder. Each message is the first of a fresh session in its repository; assertions read the
 * model's first request.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { systemClock } from '../src/clock.ts'
import { FactMemory } from '../src/fact-memory.ts'
import { ProjectLocator } from '../src/project/project-locator.ts'
import { messageText, type ChatMessage, type RecordedRequest } from './helpers/fake-model.ts'
import { directoryOf, reply, startConversations, type HeadlessConversations } from './helpers/headless-conversation.ts'
import { makeConfig, removeDir, tempDir, writeFact } from './helpers/store.ts'

const RECALL_HEAD = 'Fact memory recalled for this message'

let conversations: HeadlessConversations
let root: string
let billing: string
let worktree: string
let clone: string
let shop: string

function git(cwd: string, ...args: string[]): void {
  const result = spawnSync(
    'git',
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args],
    { cwd, encoding: 'utf8' },
  )
  assert.equal(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`)
}

function repository(name: string, origin: string): string {
  const folder = join(root, name)
  mkdirSync(folder)
  git(folder, 'init', '-q')
  git(folder, 'remote', 'add', 'origin', origin)
  writeFileSync(join(folder, 'README.md'), `# ${name}\n`)
  git(folder, 'add', '.')
  git(folder, 'commit', '-q', '-m', 'first')
  return folder
}

before(async () => {
  root = realpathSync(tempDir('fact-memory-coding-'))
  billing = repository('billing-service', 'git@github.com:acme/billing-service.git')
  shop = repository('shop-web', 'https://github.com/acme/shop-web.git')
  worktree = join(root, 'billing-hotfix')
  git(billing, 'worktree', 'add', '-q', '-b', 'hotfix', worktree)
  clone = join(root, 'billing-second')
  git(root, 'clone', '-q', billing, clone)

  conversations = await startConversations()
  // Every message is the first of a new session on one web host (which reads the web profile).
  conversations.home.writeProfilePatch('web', '- id: dsh-fact-memory\n  config:\n    directoryBudget: 200\n')
  const config = makeConfig(conversations.home.home)
  const locator = new ProjectLocator()
  // The store a version before repository keys wrote: one fact under the checkout's folder.
  const old = new FactMemory({ clock: systemClock, locator: { repositoryOfFolder: () => undefined } })
  old.open(config.resolvedDataDir)
  try {
    writeFact(old, config, {
      subject: 'billing-service',
      property: 'code owner',
      value: 'Dana Whitfield (@dana-w)',
      evidence: 'explicit_user',
      project: { key: billing, name: 'billing-service', repository: true },
    })
  } finally {
    old.close()
  }
  const memory = new FactMemory({ clock: systemClock })
  memory.open(config.resolvedDataDir)
  try {
    const here = locator.locate(billing)
    const there = locator.locate(shop)
    const own = [
      { property: 'test command', value: 'npm run test:unit -- --runInBand' },
      { property: 'staging deploy', value: 'make deploy ENV=staging (needs the VPN)' },
      { property: 'local database', value: 'Postgres 16 in Docker on localhost:5433, database billing_dev' },
      { property: 'migration tool', value: 'node-pg-migrate, files in db/migrations' },
      { property: 'log level', value: 'debug locally, info in production' },
    ]
    for (const fact of own)
      writeFact(memory, config, { subject: 'billing-service', ...fact, evidence: 'explicit_user', project: here })
    writeFact(memory, config, {
      subject: 'billing-service',
      property: 'escalation',
      value: 'see runbook OPS-12, then the phone tree',
      evidence: 'explicit_user',
      project: here,
      cues: ['who to wake up at night', '半夜出事找谁'],
    })
    writeFact(memory, config, {
      subject: 'shop-web',
      property: 'test command',
      value: 'pnpm vitest run',
      evidence: 'explicit_user',
      project: there,
    })
    for (let index = 0; index < 60; index += 1) {
      writeFact(memory, config, {
        subject: `friend-${index}`,
        property: 'favourite film',
        value: `the film number ${index}`,
        evidence: 'explicit_user',
      })
    }
  } finally {
    memory.close()
  }
  await conversations.shareHost()
})
after(async () => {
  await conversations.close()
  removeDir(root)
})

/** The model's first agent request of the last run. */
function firstRequest(): RecordedRequest {
  const [first] = conversations.model.agentRequests()
  assert.ok(first !== undefined, 'the model was asked')
  return first
}

function blockOf(messages: readonly ChatMessage[]): string {
  return (
    messages
      .filter((message) => message.role === 'user')
      .map(messageText)
      .find((text) => text.startsWith(RECALL_HEAD)) ?? ''
  )
}

/** Everything the request carried but the user's own message. */
function seen(request: RecordedRequest, prompt: string): string {
  return request.body.messages
    .filter((message) => !(message.role === 'user' && messageText(message) === prompt))
    .map(messageText)
    .join('\n')
}

/** Everything the request carries before the user's own message. */
function prefixBefore(request: RecordedRequest, prompt: string): string {
  const index = request.body.messages.findIndex((message) => message.role === 'user' && messageText(message) === prompt)
  assert.ok(index > 0, "the user's message is in the request")
  return JSON.stringify({ tools: request.body.tools, messages: request.body.messages.slice(0, index) })
}

describe('recall where developers work, in a real DSH host', () => {
  it("a plain instruction in a repository recalls that repository's fact past a directory of newer facts", async () => {
    const prompt = 'Run the test suite and tell me what fails.'
    await conversations.converseIn(billing, prompt, reply)
    const request = firstRequest()
    assert.doesNotMatch(directoryOf(request.body.messages), /test:unit/u, 'the directory does not list it')
    assert.match(
      blockOf(request.body.messages),
      /- billing-service · test command \(project billing-service\): npm run test:unit -- --runInBand \[#\d+/u,
    )
    assert.doesNotMatch(seen(request, prompt), /pnpm vitest run/u, "the other repository's test command never comes")
  })

  it('a paraphrase and a Chinese message recall an English fact through the lexicon', async () => {
    for (const prompt of ['Ship this branch to the pre-production environment.', '把这个分支部署到预发环境']) {
      await conversations.converseIn(billing, prompt, reply)
      assert.match(
        blockOf(firstRequest().body.messages),
        /staging deploy \(project billing-service\): make deploy ENV=staging/u,
        prompt,
      )
    }
  })

  it("a message only the writer's cues share recalls the fact, and the cues never show", async () => {
    const prompt = '半夜出事了找谁？'
    await conversations.converseIn(billing, prompt, reply)
    const block = blockOf(firstRequest().body.messages)
    assert.match(block, /escalation \(project billing-service\): see runbook OPS-12/u)
    assert.doesNotMatch(block, /who to wake up|半夜出事找谁/u)
  })

  it('a message about nothing stored gets no block', async () => {
    await conversations.converseIn(billing, 'Write me a haiku about autumn leaves.', reply)
    assert.equal(blockOf(firstRequest().body.messages), '')
  })

  it("a worktree and a second clone are the same project, even for a fact stored under the checkout's folder; another repository sees none of it", async () => {
    for (const [cwd, prompt] of [
      [worktree, 'Who is the code owner I should ask for a review?'],
      [clone, 'Connect to the local database and list the tables.'],
    ] as const) {
      await conversations.converseIn(cwd, prompt, reply)
      const request = firstRequest()
      assert.match(seen(request, prompt), cwd === worktree ? /Dana Whitfield/u : /localhost:5433/u, cwd)
    }
    for (const prompt of [
      'Who is the code owner I should ask for a review?',
      'Connect to the local database and list the tables.',
      'Run the test suite.',
    ]) {
      await conversations.converseIn(shop, prompt, reply)
      const text = seen(firstRequest(), prompt)
      for (const value of ['Dana Whitfield', 'localhost:5433', 'test:unit', 'OPS-12'])
        assert.ok(!text.includes(value), `${prompt} → ${value}`)
    }
  })

  it("keeps everything before the user's message byte-identical between two messages in one project", async () => {
    const first = 'Run the test suite and tell me what fails.'
    await conversations.converseIn(billing, first, reply)
    const withBlock = prefixBefore(firstRequest(), first)
    const second = 'Write me a haiku about autumn leaves.'
    await conversations.converseIn(billing, second, reply)
    assert.equal(prefixBefore(firstRequest(), second), withBlock)
  })
})
