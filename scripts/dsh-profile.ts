/**
 * Link this checkout into a DSH home the way `dsh plugin --profile <name> add /abs/path` does — a `link:`
 * dependency, a node_modules symlink and a bundle entry — without needing pnpm. Used by `npm start` (a
 * project-local home) and by the host tests (throwaway homes).
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The checkout root (the linked plugin package). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** The dsh launcher from the devDependencies. */
export const DSH_BIN = join(REPO_ROOT, 'node_modules/@deepseek-ai/dsh/lib/bin.js')

/** A DSH home with the plugin linked into the headless and web profiles. */
export interface DshHome {
  readonly home: string
  /** A workspace directory to run sessions in. */
  readonly workspace: string
  /** Where the plugin keeps its store by default. */
  readonly dataDir: string
  /**
   * Write a profile's user patch layer (cordis.patch.yml) in one step (a sibling file renamed over it): the host
   * watches the file and reloads on its first change event, so an in-place write could be read half-written.
   */
  writeProfilePatch(profile: string, yaml: string): void
  /** Remove everything. */
  remove(): void
}

const PROFILE_BUNDLES: Readonly<Record<string, readonly string[]>> = {
  headless: ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-headless', 'dsh-fact-memory'],
  web: ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app', 'dsh-fact-memory'],
}

/**
 * The web client's first-run notice, as the host stores its acknowledgement in the home's settings.yaml (the
 * `ui-onboarding` namespace; the version is rc.8's WELCOME_NOTICE_VERSION in dsh-client-ui-settings-models).
 */
const NOTICE_ACKNOWLEDGED = 'ui-onboarding:\n  welcomeNoticeVersion: 2026-08-13.1\n'

/**
 * Create (or refresh) a DSH home with the plugin linked into the headless and web profiles. An existing
 * profile's user patch layer is kept. A throwaway home (no `root`: the tests' and benches') starts with the web
 * client's first-run notice acknowledged, as after a person's first visit, so no page waits on it; a home at `root`
 * (npm start's) shows it once, as the host does for anyone.
 * @param root - where; a fresh temporary directory by default.
 * @returns the home.
 */
export function createDshHome(root?: string): DshHome {
  const home = root ?? mkdtempSync(join(tmpdir(), 'fact-memory-dsh-'))
  const workspace = join(home, 'workspace')
  mkdirSync(workspace, { recursive: true })
  if (root === undefined) writeIfMissing(join(home, 'settings.yaml'), NOTICE_ACKNOWLEDGED)
  for (const [profile, bundles] of Object.entries(PROFILE_BUNDLES)) {
    const dir = join(home, 'profiles', profile)
    mkdirSync(join(dir, 'node_modules'), { recursive: true })
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify(
        {
          name: `dsh-profile-${profile}`,
          private: true,
          dependencies: { 'dsh-fact-memory': `link:${REPO_ROOT}` },
          dsh: { profile: { bundles } },
        },
        null,
        2,
      )}\n`,
    )
    writeIfMissing(join(dir, 'cordis.patch.yml'), '[]\n')
    writeIfMissing(
      join(dir, 'pnpm-workspace.yaml'),
      'packages:\n  - .\n\nnodeLinker: hoisted\nautoInstallPeers: false\n',
    )
    try {
      symlinkSync(REPO_ROOT, join(dir, 'node_modules', 'dsh-fact-memory'), 'junction')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  return {
    home,
    workspace,
    dataDir: join(home, 'fact-memory'),
    writeProfilePatch(profile, yaml) {
      const file = join(home, 'profiles', profile, 'cordis.patch.yml')
      writeFileSync(`${file}.tmp`, yaml)
      renameSync(`${file}.tmp`, file)
    },
    remove() {
      rmSync(home, { recursive: true, force: true })
    },
  }
}

function writeIfMissing(path: string, text: string): void {
  try {
    writeFileSync(path, text, { flag: 'wx' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}
