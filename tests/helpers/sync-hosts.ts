/**
 * Two DSH homes that sync through one target, each with its own store and its own real web host, sharing one fake
 * model: the setup of the host sync specs. Each home's web and headless profiles name the target and a device name of
 * its own; the passphrase is stored through the plugin's own key verb into each home's host credential store. Each
 * web host runs with a folder of arm files for the test-only round hold (src/sync/round-hold.ts), so a spec can stop a
 * round at a point and kill the host there.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { HoldPoint } from '../../src/sync/round-hold.ts'
import type { Browser } from 'playwright-core'
import { openHost, openPluginCard } from './browser.ts'
import { createDshHome, fullDiskAvailable, runHeadless, startWebHost, type DshHome, type WebHost } from './dsh-host.ts'
import { converse, FactMemoryApi } from './fact-memory-web.ts'
import { FakeModel, messageText } from './fake-model.ts'
import { syncStatusSchema, type SyncStatus } from '../../src/sync/sync-status.schema.ts'
import { hostApi } from './fact-memory-web.ts'
import { waitFor } from './poll.ts'

/** One machine: its home, its running web host (absent while stopped) and its API. */
export interface SyncMachine {
  readonly name: string
  /** Its `syncDeviceName`: what the other machine calls it. */
  readonly deviceName: string
  readonly home: DshHome
  /** The folder of arm files its web host's round hold watches. */
  readonly holds: string
  /** A folder that is a 16 KiB disk for its web host alone; undefined where no mount namespace can be made. */
  readonly fullDisk: string | undefined
  host: WebHost | undefined
  api: FactMemoryApi
}

/** Two machines and the model they share. */
export interface SyncPair {
  readonly model: FakeModel
  /** The sync passphrase both machines keep in their credential stores. */
  readonly passphrase: string
  readonly a: SyncMachine
  readonly b: SyncMachine
  /** Start a machine's web host (again), with extra environment for that boot (a preload that moves its clock). */
  boot(machine: SyncMachine, env?: Record<string, string>): Promise<void>
  /** Stop a machine's web host (its unload runs the last round). */
  halt(machine: SyncMachine): Promise<void>
  /** kill -9 a machine's web host: no unload, no last round. */
  kill(machine: SyncMachine): Promise<void>
  /** Stop both hosts and the model, and remove both homes. */
  stop(): Promise<void>
}

/** The profile patch that turns sync on, naming the device. */
export function syncPatch(target: string, deviceName: string): string {
  return `- id: dsh-fact-memory\n  config:\n    syncTarget: ${JSON.stringify(target)}\n    syncIntervalMinutes: 0\n    syncDeviceName: ${JSON.stringify(deviceName)}\n`
}

/**
 * Start two machines syncing through `target`, each with `passphrase` stored in its credential store.
 * @param target - the folder path or git URL.
 * @param passphrase - the sync passphrase.
 * @returns the pair.
 */
export async function startSyncPair(
  target: string,
  passphrase: string,
  options: { readonly fullDisk?: boolean } = {},
): Promise<SyncPair> {
  const model = await FakeModel.start()
  const withDisk = options.fullDisk === true && fullDiskAvailable()
  const machine = (name: string, deviceName: string): SyncMachine => {
    const home = createDshHome()
    home.writeProfilePatch('web', syncPatch(target, deviceName))
    home.writeProfilePatch('headless', syncPatch(target, deviceName))
    const holds = join(home.home, 'sync-holds')
    mkdirSync(holds, { recursive: true })
    const fullDisk = withDisk ? join(home.home, 'full-disk') : undefined
    if (fullDisk !== undefined) mkdirSync(fullDisk, { recursive: true })
    const api = new FactMemoryApi('http://127.0.0.1:1')
    return { name, deviceName, home, holds, fullDisk, host: undefined, api }
  }
  const a = machine('A', 'work laptop')
  const b = machine('B', 'home desktop')
  const boot = async (m: SyncMachine, env: Record<string, string> = {}): Promise<void> => {
    m.host = await startWebHost(m.home, model.url, { DSH_FACT_MEMORY_SYNC_HOLD: m.holds, ...env }, m.fullDisk)
    m.api = new FactMemoryApi(m.host.url)
  }
  const halt = async (m: SyncMachine): Promise<void> => {
    await m.host?.stop()
    m.host = undefined
  }
  const kill = async (m: SyncMachine): Promise<void> => {
    await m.host?.kill()
    m.host = undefined
  }
  const stop = async (): Promise<void> => {
    await halt(a)
    await halt(b)
    await model.close()
    a.home.remove()
    b.home.remove()
  }
  try {
    for (const m of [a, b]) {
      await boot(m)
      await m.api.ok('key', { ref: 'sync', value: passphrase })
      // A round with the passphrase stored: the start round may have found the credential store not answering yet
      // (it then retries after a backoff), and the specs start from a settled machine. A pair with no target (team
      // memory alone) has no round to run.
      if (target !== '') await syncNow(m)
    }
    return { model, passphrase, a, b, boot, halt, kill, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** A memory_write call the model makes for one explicit statement of the user. */
export function statement(subject: string, property: string, value: string): ToolCall {
  return {
    name: 'memory_write',
    arguments: { subject, property, value, evidence: 'explicit_user', quote: `${subject} ${property} is ${value}` },
  }
}

/** One tool call the fake model makes. */
export interface ToolCall {
  readonly name: string
  readonly arguments: Record<string, unknown>
}

/**
 * One turn on a machine in which the model makes one tool call.
 * @param cwd - the session's working directory; the home's workspace by default.
 * @returns the tool's answer, as the model read it.
 */
export async function callThrough(
  pair: SyncPair,
  machine: SyncMachine,
  prompt: string,
  call: ToolCall,
  cwd: string = machine.home.workspace,
): Promise<string> {
  await converse(machine.host?.url ?? '', pair.model, cwd, prompt, { toolCalls: [call] })
  const messages = pair.model.agentRequests().at(-1)?.body.messages ?? []
  return messages
    .filter((message) => message.role === 'tool')
    .map(messageText)
    .join('\n')
}

/**
 * Write one fact on a machine the way a user does: the model calls memory_write in a turn.
 * @returns how long the turn took, in ms.
 */
export async function writeThrough(
  pair: SyncPair,
  machine: SyncMachine,
  subject: string,
  property: string,
  value: string,
): Promise<number> {
  const started = performance.now()
  await callThrough(pair, machine, `remember: ${subject} ${property} is ${value}`, statement(subject, property, value))
  return performance.now() - started
}

/**
 * The same statement, returning what memory_write answered the model.
 * @returns the tool's answer text.
 */
export function stateThrough(
  pair: SyncPair,
  machine: SyncMachine,
  subject: string,
  property: string,
  value: string,
): Promise<string> {
  return callThrough(pair, machine, `remember: ${subject} ${property} is ${value}`, statement(subject, property, value))
}

/**
 * What the model reads when it searches memory on a machine: one turn in which it calls memory_search.
 * @param prompt - the user's message; a question about the query by default.
 * @returns the tool's answer text.
 */
export function searchThrough(
  pair: SyncPair,
  machine: SyncMachine,
  query: string,
  prompt = `what do you know about ${query}?`,
): Promise<string> {
  return callThrough(pair, machine, prompt, { name: 'memory_search', arguments: { query } })
}

/**
 * Forget one slot on a machine the way a user does: the model calls memory_forget in a turn.
 * @returns the tool's answer text.
 */
export function forgetThrough(
  pair: SyncPair,
  machine: SyncMachine,
  subject: string,
  property: string,
): Promise<string> {
  return callThrough(pair, machine, `forget the ${subject} ${property}`, {
    name: 'memory_forget',
    arguments: { subject, property },
  })
}

/**
 * One value's line in a memory_search answer (`   - <value> [...`), or '' when the answer has none.
 * @param answer - the tool's answer text.
 * @param value - the value.
 */
export function answerLine(answer: string, value: string): string {
  return answer.split('\n').find((each) => each.startsWith(`   - ${value} [`)) ?? ''
}

/**
 * The same write in a one-shot headless run on a machine whose web host is stopped. A headless run's plugins cannot
 * reach the host credential store (DSH rc.8), so the passphrase comes from the environment, as a script would give it.
 * @param passphraseInEnvironment - false: the run has no way to read the passphrase.
 * @returns the run's exit code.
 */
export async function writeHeadless(
  pair: SyncPair,
  machine: SyncMachine,
  subject: string,
  property: string,
  value: string,
  passphraseInEnvironment = true,
): Promise<number | null> {
  pair.model.reset()
  pair.model.enqueue({ toolCalls: [statement(subject, property, value)] }, { text: 'Done.' })
  const run = await runHeadless(
    machine.home,
    pair.model.url,
    `remember: ${subject} ${property} is ${value}`,
    60_000,
    machine.home.workspace,
    passphraseInEnvironment ? { FACT_MEMORY_SYNC_PASSPHRASE: pair.passphrase } : {},
  )
  return run.code
}

/**
 * The sealed segment files of one device under a sync folder (or a git working copy).
 * @param root - the folder.
 * @param device - the device id.
 * @returns the file names, sorted.
 */
export function segmentsOf(root: string, device: string): string[] {
  try {
    return readdirSync(join(root, 'devices', device, 'segments'))
      .filter((name) => name.endsWith('.seg'))
      .sort()
  } catch {
    return []
  }
}

/** A machine's sync status, as `status` reports it (validated against its schema). */
export async function syncStatus(machine: SyncMachine): Promise<SyncStatus> {
  const answer = await machine.api.ok('status')
  return syncStatusSchema.parse(answer['sync'])
}

/** "Sync now" on a machine: the round it ran and the status after it. */
export async function syncNow(machine: SyncMachine): Promise<{ round: Record<string, unknown>; status: SyncStatus }> {
  const answer = await machine.api.ok('sync-now')
  return { round: answer['round'] as Record<string, unknown>, status: syncStatusSchema.parse(answer['status']) }
}

/** Change a machine's sync settings through the host's settings service (live, no restart). */
export async function setSyncSettings(machine: SyncMachine, patch: Record<string, unknown>): Promise<void> {
  await hostApi(machine.host?.url ?? '', 'settings.update', { ns: 'dsh-fact-memory', patch })
}

/** Change a machine's sync target (live, no restart). */
export function setTarget(machine: SyncMachine, syncTarget: string): Promise<void> {
  return setSyncSettings(machine, { syncTarget })
}

/**
 * B's round after A's: it must succeed, receive A's records and list device A with its newest clock.
 * @returns B's status after the round.
 */
export async function receivedFrom(receiver: SyncMachine, device: string): Promise<SyncStatus> {
  const got = await syncNow(receiver)
  assert.equal(got.round['ok'], true, JSON.stringify(got.round))
  assert.ok(Number(got.round['received']) >= 1, JSON.stringify(got.round))
  const peer = got.status.devices.find((entry) => entry.id === device)
  assert.ok(
    peer !== undefined,
    `${receiver.name} does not list device ${device}: ${JSON.stringify(got.status.devices)}`,
  )
  assert.notEqual(peer.lastRecordClock, null)
  assert.notEqual(peer.lastSeenAt, null)
  assert.deepEqual(got.status.problems, [])
  return got.status
}

/** A writes a fact, both sync, and the fact must be current on B (the apply slice makes it so). */
export async function assertCurrentOnB(pair: SyncPair): Promise<void> {
  await writeThrough(pair, pair.a, 'build cache', 'bucket', 'fm-cache-eu')
  await syncNow(pair.a)
  await syncNow(pair.b)
  const facts = await pair.b.api.ok('facts', { subject: 'build cache' })
  const values = (facts['facts'] as { value: string }[]).map((fact) => fact.value)
  assert.ok(values.includes('fm-cache-eu'), JSON.stringify(values))
}

/**
 * Arm a hold point on a machine: its next round stops there (src/sync/round-hold.ts) and says so.
 * @returns waits until a round is held there.
 */
export function armHold(machine: SyncMachine, point: HoldPoint): { held(): Promise<void> } {
  rmSync(join(machine.holds, `${point}.held`), { force: true })
  writeFileSync(join(machine.holds, point), '')
  return {
    held: () =>
      waitFor(
        () => (existsSync(join(machine.holds, `${point}.held`)) ? true : undefined),
        `${machine.name}'s round to reach ${point}`,
        30_000,
      ).then(() => undefined),
  }
}

/** Disarm every hold point of a machine (after its host was killed at one). */
export function disarmHolds(machine: SyncMachine): void {
  for (const name of readdirSync(machine.holds)) rmSync(join(machine.holds, name), { force: true })
}

/**
 * A machine's library as the management API lists it: every current fact (active or contested) as
 * `subject · property · value · status`, sorted, repeats kept (a duplicate shows twice).
 */
export async function libraryOf(machine: SyncMachine): Promise<string[]> {
  const answer = await machine.api.ok('facts', { limit: 100 })
  assert.equal(answer['nextCursor'], null, 'the spec library outgrew one page')
  return (answer['facts'] as { subject: string; property: string; value: string; status: string }[])
    .map((fact) => `${fact.subject} · ${fact.property} · ${fact.value} · ${fact.status}`)
    .sort()
}

/**
 * The environment that starts a host whose machine clock runs off (tests/helpers/clock-offset.ts, preloaded).
 * @param offsetMs - how far ahead (negative: behind) its clock runs.
 * @returns NODE_OPTIONS and the offset, for {@link SyncPair.boot}.
 */
export function clockOffsetEnv(offsetMs: number): Record<string, string> {
  return {
    NODE_OPTIONS: `--import ${new URL('./clock-offset.ts', import.meta.url).href}`,
    FACT_MEMORY_TEST_CLOCK_OFFSET_MS: String(offsetMs),
  }
}

/**
 * Open a machine's host in the browser: its settings, the Plugins tab, and the plugin's card with the Sync panel.
 * @returns the open page.
 */
export async function openSyncPanel(
  browser: Browser,
  machine: SyncMachine,
): Promise<Awaited<ReturnType<typeof openHost>>> {
  const opened = await openHost(browser, machine.host?.url ?? '')
  const { page } = opened
  await openPluginCard(page)
  await page.locator('fm-settings-card fm-sync-panel [data-fm="sync-state"]').waitFor()
  return opened
}

/**
 * Put a machine back on a working target: the setting taken, then a round that sends everything waiting.
 * @param machine - the machine.
 * @param target - the folder or URL.
 */
export async function backOnTarget(machine: SyncMachine, target: string): Promise<void> {
  await setTarget(machine, target)
  await waitFor(
    async () => ((await syncStatus(machine)).target?.where === target ? true : undefined),
    `${machine.name} to take ${target} back`,
    10_000,
  )
  const back = await syncNow(machine)
  assert.equal(back.round['ok'], true, JSON.stringify(back.round))
  assert.equal(back.status.pending, 0)
}

/** End a host sync suite: the browser, both hosts and the model, and the scratch folder. */
export async function endSyncSuite(
  pair: SyncPair | undefined,
  browser: Browser | undefined,
  scratch: string,
): Promise<void> {
  await browser?.close()
  await pair?.stop()
  rmSync(scratch, { recursive: true, force: true })
}
