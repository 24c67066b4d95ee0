/**
 * Project scope as the model meets it in the real DSH rc.8 host, each conversation a new session on one shared web host,
 * run in a working directory of its own: two git repositories in temporary folders, a scripted fake model on loopback, and the
 * directory read from the runtime context of the model's last request. A port written with scope "project" in one
 * repository is in that repository's directory only; a global preference is in both; a search from the other
 * repository finds it, marked with its project's name; a session started in a subfolder is in its repository, and
 * its directory keeps its bytes from step to step while the store is unchanged. A forget holds in every scope: a
 * claim forgotten globally is refused when the model writes it back with scope "project" or a label, one forgotten in
 * one repository is refused globally, and memory_forget by subject names the scopes it reached and what the other
 * repository still holds.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { messageText } from './helpers/fake-model.ts'
import {
  directoryOf,
  forget,
  reply,
  search,
  startConversations,
  write,
  type HeadlessConversations,
} from './helpers/headless-conversation.ts'
import { removeDir, tempDir } from './helpers/store.ts'

let conversations: HeadlessConversations
let root: string
let billing: string
let shop: string

before(async () => {
  conversations = await startConversations()
  root = realpathSync(tempDir('fact-memory-repos-'))
  billing = join(root, 'billing-api')
  shop = join(root, 'shop-web')
  for (const repo of [billing, shop]) {
    mkdirSync(repo, { recursive: true })
    const init = spawnSync('git', ['init', '-q', repo], { encoding: 'utf8' })
    assert.equal(init.status, 0, init.stderr)
  }
  mkdirSync(join(billing, 'src', 'handlers'), { recursive: true })
  await conversations.shareHost()
})
after(async () => {
  await conversations.close()
  removeDir(root)
})

describe('project scope in a real DSH host', () => {
  it('a port written with scope "project" in one repository is in its directory, named, and not in the other\'s', async () => {
    const written = await conversations.converseIn(
      billing,
      'The dev server here runs on port 5173, remember it for this repo',
      write({
        subject: 'dev server',
        property: 'port',
        value: '5173',
        evidence: 'explicit_user',
        quote: 'The dev server here runs on port 5173',
        scope: 'project',
      }),
      reply,
    )
    assert.match(
      written.toolResults[0] ?? '',
      /^outcome: saved\nStored #\d+: dev server · port = 5173 \(project billing-api\)/u,
    )
    assert.match(
      directoryOf(written.lastRequest),
      /- dev server · port: 5173 \(\d{4}-\d{2}-\d{2}, project billing-api\)/u,
    )
    const ours = directoryOf(written.lastRequest).split('Fact memory:')[1] ?? ''
    assert.doesNotMatch(
      ours,
      new RegExp(root.replaceAll('/', '\\/'), 'u'),
      'the directory names the project, never its path',
    )

    const elsewhere = await conversations.converseIn(shop, 'hi', reply)
    assert.doesNotMatch(directoryOf(elsewhere.lastRequest), /5173|billing-api/u)
  })

  it("a global preference is in both repositories' directories", async () => {
    await conversations.converseIn(
      shop,
      'I always want answers in British English',
      write({
        subject: 'user',
        property: 'spelling',
        value: 'British English',
        evidence: 'explicit_user',
        quote: 'I always want answers in British English',
      }),
      reply,
    )
    for (const cwd of [billing, shop]) {
      const { lastRequest } = await conversations.converseIn(cwd, 'hello again', reply)
      assert.match(directoryOf(lastRequest), /- user · spelling: British English \(\d{4}-\d{2}-\d{2}\)/u, cwd)
    }
  })

  it("a search from the other repository finds the fact, marked with its project's name", async () => {
    const { toolResults } = await conversations.converseIn(
      shop,
      'what port does the billing-api dev server use in the other repo?',
      search({ query: 'dev server port' }),
      reply,
    )
    assert.match(toolResults[0] ?? '', /^outcome: ok\n/u)
    assert.match(toolResults[0] ?? '', /\d\. dev server · port \(another project: billing-api\): 5173 \[#\d+/u)
  })

  it("a session started in a subfolder of a repository is in that repository's project", async () => {
    const { lastRequest, toolResults } = await conversations.converseIn(
      join(billing, 'src', 'handlers'),
      'which port is ours?',
      search({ query: 'dev server port' }),
      reply,
    )
    assert.match(directoryOf(lastRequest), /- dev server · port: 5173 \(\d{4}-\d{2}-\d{2}, project billing-api\)/u)
    assert.match(toolResults[0] ?? '', /\d\. dev server · port \(project billing-api\): 5173 \[#\d+/u)
    // Two steps, one unchanged store: the context's bytes held, so the host appended its snapshot once.
    const snapshots = lastRequest.filter(
      (message) => message.role === 'user' && messageText(message).startsWith('Current runtime context.'),
    )
    assert.equal(snapshots.length, 1)
  })
})

describe('a forget holds in every scope, as the model meets it in a real DSH host', () => {
  const linter = {
    subject: 'linter',
    property: 'tool',
    value: 'eslint',
    evidence: 'explicit_user',
    quote: 'We lint everything with eslint',
  }

  it('a claim forgotten globally is refused when the model writes it back with scope "project" or a label', async () => {
    const saved = await conversations.converseIn(shop, 'We lint everything with eslint', write(linter), reply)
    assert.match(saved.toolResults[0] ?? '', /^outcome: saved\nStored #\d+: linter · tool = eslint/u)
    const forgot = await conversations.converseIn(
      shop,
      'forget what you know about the linter',
      forget({ subject: 'linter' }),
      reply,
    )
    assert.match(
      forgot.toolResults[0] ?? '',
      /^outcome: ok\nForgot 1 fact: #\d+ linter · tool = eslint \(global\)\. Reached: global, labels, project shop-web\. Its claim is tombstoned in every scope/u,
    )
    const back = await conversations.converseIn(
      billing,
      'We lint everything with eslint',
      write({ ...linter, scope: 'project' }),
      write({ ...linter, scope: 'infra' }),
      reply,
    )
    assert.equal(back.toolResults.length, 2)
    for (const result of back.toolResults) {
      assert.match(
        result,
        /^outcome: refused\nthis claim was forgotten at the user's request \(\d{4}-\d{2}-\d{2}\); it cannot be written back in any scope\. Nothing was stored\./u,
      )
    }
    assert.doesNotMatch(directoryOf(back.lastRequest), /eslint/u)
  })

  it('a subject forgotten in one repository says what the other still holds, and its claim is refused globally', async () => {
    const formatter = {
      subject: 'formatter',
      property: 'tool',
      value: 'prettier',
      evidence: 'explicit_user',
      quote: 'Format this repo with prettier',
      scope: 'project',
    }
    for (const cwd of [billing, shop]) {
      const saved = await conversations.converseIn(cwd, 'Format this repo with prettier', write(formatter), reply)
      assert.match(saved.toolResults[0] ?? '', /^outcome: saved\n/u, cwd)
    }
    const forgot = await conversations.converseIn(
      billing,
      'forget the formatter here',
      forget({ subject: 'formatter' }),
      reply,
    )
    const answer = forgot.toolResults[0] ?? ''
    assert.match(
      answer,
      /^outcome: ok\nForgot 1 fact: #\d+ formatter · tool = prettier \(project billing-api\)\. Reached: global, labels, project billing-api\./u,
    )
    assert.match(
      answer,
      /Not reached: 1 fact of this subject in another project \(shop-web: 1\), which a forget by subject from this session leaves alone/u,
    )
    assert.doesNotMatch(answer, new RegExp(root.replaceAll('/', '\\/'), 'u'), 'a project is named, never its path')
    const back = await conversations.converseIn(
      billing,
      'Format everything with prettier',
      write({ ...formatter, scope: 'global' }),
      reply,
    )
    assert.match(back.toolResults[0] ?? '', /^outcome: refused\nthis claim was forgotten at the user's request/u)
  })
})

describe('project scope with a directory too small for any line', () => {
  it("per-turn recall brings the project's fact in its own repository and never in the other", async () => {
    // A directory too small for any line: whatever reaches the model about the port comes through recall. A
    // configuration of its own, so a host of its own, booted after the other conversations (a profile is read at boot).
    await conversations.endSharedHost()
    conversations.home.writeProfilePatch('web', '- id: dsh-fact-memory\n  config:\n    directoryBudget: 40\n')
    await conversations.shareHost()
    try {
      const blocks = (messages: readonly { role: string }[]): string[] =>
        messages
          .filter((message) => message.role === 'user')
          .map((message) => messageText(message as never))
          .filter((text) => text.startsWith('Fact memory recalled for this message'))
      const question = 'Which port does the dev server run on?'
      const home = await conversations.converseIn(billing, question, reply)
      assert.match(
        blocks(home.lastRequest)[0] ?? '',
        /- dev server · port \(project billing-api\): 5173 \[#\d+ · since/u,
      )
      const other = await conversations.converseIn(shop, question, reply)
      assert.ok(
        !blocks(other.lastRequest).some((block) => block.includes('5173')),
        "another project's port is never recalled",
      )
      for (const message of other.lastRequest) assert.doesNotMatch(messageText(message), /5173/u)
    } finally {
      await conversations.endSharedHost()
      conversations.home.writeProfilePatch('web', '[]\n')
    }
  })
})
