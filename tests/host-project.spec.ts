/**
 * Project scope as the model meets it in the real DSH rc.8 headless host, each conversation run in a working
 * directory of its own: two git repositories in temporary folders, a scripted fake model on loopback, and the
 * directory read from the runtime context of the model's last request. A port written with scope "project" in one
 * repository is in that repository's directory only; a global preference is in both; a search from the other
 * repository finds it, marked with its project's name; a session started in a subfolder is in its repository, and
 * its directory keeps its bytes from step to step while the store is unchanged.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { messageText } from './helpers/fake-model.ts'
import { directoryOf, reply, search, startConversations, write, type HeadlessConversations } from './helpers/headless-conversation.ts'
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
})
after(async () => {
  await conversations.close()
  removeDir(root)
})

describe('project scope in a real DSH host', () => {
  it('a port written with scope "project" in one repository is in its directory, named, and not in the other\'s', async () => {
    const written = await conversations.converseIn(billing, 'The dev server here runs on port 5173, remember it for this repo',
      write({ subject: 'dev server', property: 'port', value: '5173', evidence: 'explicit_user', quote: 'The dev server here runs on port 5173', scope: 'project' }), reply)
    assert.match(written.toolResults[0] ?? '', /^outcome: saved\nStored #\d+: dev server · port = 5173 \(project billing-api\)/u)
    assert.match(directoryOf(written.lastRequest), /- dev server · port: 5173 \(\d{4}-\d{2}-\d{2}, project billing-api\)/u)
    const ours = directoryOf(written.lastRequest).split('Fact memory:')[1] ?? ''
    assert.doesNotMatch(ours, new RegExp(root.replaceAll('/', '\\/'), 'u'), 'the directory names the project, never its path')

    const elsewhere = await conversations.converseIn(shop, 'hi', reply)
    assert.doesNotMatch(directoryOf(elsewhere.lastRequest), /5173|billing-api/u)
  })

  it('a global preference is in both repositories\' directories', async () => {
    await conversations.converseIn(shop, 'I always want answers in British English',
      write({ subject: 'user', property: 'spelling', value: 'British English', evidence: 'explicit_user', quote: 'I always want answers in British English' }), reply)
    for (const cwd of [billing, shop]) {
      const { lastRequest } = await conversations.converseIn(cwd, 'hello again', reply)
      assert.match(directoryOf(lastRequest), /- user · spelling: British English \(\d{4}-\d{2}-\d{2}\)/u, cwd)
    }
  })

  it('a search from the other repository finds the fact, marked with its project\'s name', async () => {
    const { toolResults } = await conversations.converseIn(shop, 'what port does the billing-api dev server use in the other repo?',
      search({ query: 'dev server port' }), reply)
    assert.match(toolResults[0] ?? '', /^outcome: ok\n/u)
    assert.match(toolResults[0] ?? '', /\d\. dev server · port \(another project: billing-api\): 5173 \[#\d+/u)
  })

  it('per-turn recall brings the project\'s fact in its own repository and never in the other', async () => {
    // A directory too small for any line: whatever reaches the model about the port comes through recall.
    conversations.home.writeProfilePatch('headless', '- id: dsh-fact-memory\n  config:\n    directoryBudget: 40\n')
    try {
      const blocks = (messages: readonly { role: string }[]): string[] => messages.filter((message) => message.role === 'user')
        .map((message) => messageText(message as never)).filter((text) => text.startsWith('Fact memory recalled for this message'))
      const question = 'Which port does the dev server run on?'
      const home = await conversations.converseIn(billing, question, reply)
      assert.match(blocks(home.lastRequest)[0] ?? '', /- dev server · port \(project billing-api\): 5173 \[#\d+ · since/u)
      const other = await conversations.converseIn(shop, question, reply)
      assert.ok(!blocks(other.lastRequest).some((block) => block.includes('5173')), 'another project\'s port is never recalled')
      for (const message of other.lastRequest) assert.doesNotMatch(messageText(message), /5173/u)
    } finally {
      conversations.home.writeProfilePatch('headless', '[]\n')
    }
  })

  it('a session started in a subfolder of a repository is in that repository\'s project', async () => {
    const { lastRequest, toolResults } = await conversations.converseIn(join(billing, 'src', 'handlers'), 'which port is ours?',
      search({ query: 'dev server port' }), reply)
    assert.match(directoryOf(lastRequest), /- dev server · port: 5173 \(\d{4}-\d{2}-\d{2}, project billing-api\)/u)
    assert.match(toolResults[0] ?? '', /\d\. dev server · port \(project billing-api\): 5173 \[#\d+/u)
    // Two steps, one unchanged store: the context's bytes held, so the host appended its snapshot once.
    const snapshots = lastRequest.filter((message) => message.role === 'user' && messageText(message).startsWith('Current runtime context.'))
    assert.equal(snapshots.length, 1)
  })
})
