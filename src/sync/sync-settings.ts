/**
 * The sync settings: their schemastery declaration (to join the plugin's Config in config.ts) and the pure reading
 * of the raw values into what the sync service runs with, sync off, or an error in words. The passphrase itself is
 * never a setting: `syncPassphraseRef` names a credential in the host credential store, resolved per use.
 */
import Schema from '@deepseek-ai/schemastery'
import { maskUrl, parseSyncTarget } from './sync-target.ts'

/** The raw sync settings, as they sit in Config. */
export interface SyncConfig {
  /** Absolute folder path or git remote URL; empty turns sync off. Default `''`. */
  syncTarget: string
  /** Credential reference of the passphrase that encrypts the sync files; empty: plain files. Default `'FACT_MEMORY_SYNC_PASSPHRASE'`. */
  syncPassphraseRef: string
  /** Let sensitive personal data (never credentials) leave the machine. Default `false`. */
  syncSensitive: boolean
  /** Minutes between rounds when nothing else asks for one; 0: no timer. Default `5`. */
  syncIntervalMinutes: number
  /** This machine's name as the other machines show it; empty: the host name. Default `''`. */
  syncDeviceName: string
}

/** Defaults of {@link SyncConfig}. */
export const SYNC_DEFAULTS: SyncConfig = {
  syncTarget: '',
  syncPassphraseRef: 'FACT_MEMORY_SYNC_PASSPHRASE',
  syncSensitive: false,
  syncIntervalMinutes: 5,
  syncDeviceName: '',
}

/** Longest timer setting: one day. */
const MAX_INTERVAL_MINUTES = 1440
/** Longest device name, as the store keeps it. */
const MAX_DEVICE_NAME = 200
const CREDENTIAL_REF = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/u

/** The schemastery declaration of the sync settings, one object to add to Config's intersection. */
export const syncSettingsSchema = Schema.object({
  syncTarget: Schema.string()
    .default(SYNC_DEFAULTS.syncTarget)
    .description(
      'Sync between machines: an absolute folder path a file-sync tool keeps in step, or a private git remote URL (ssh://, https://, file:// or user@host:path) used with your own git credentials. Empty: off.',
    ),
  syncPassphraseRef: Schema.string()
    .role('credential-ref')
    .default(SYNC_DEFAULTS.syncPassphraseRef)
    .description(
      'Credential name of the passphrase that encrypts the sync files (host credential store, then environment). Unset: files are plain.',
    ),
  syncSensitive: Schema.boolean()
    .default(SYNC_DEFAULTS.syncSensitive)
    .description('Also sync sensitive personal data (phone, ID, email). Credentials never leave the machine.'),
  syncIntervalMinutes: Schema.natural()
    .max(MAX_INTERVAL_MINUTES)
    .default(SYNC_DEFAULTS.syncIntervalMinutes)
    .description(
      'Minutes between sync rounds when nothing else asks for one; writes sync within seconds anyway. 0: no timer.',
    ),
  syncDeviceName: Schema.string()
    .max(MAX_DEVICE_NAME)
    .default(SYNC_DEFAULTS.syncDeviceName)
    .description(
      "This machine's name as the other machines show it (in their Sync panel, and beside a conflict that came from here). Empty: the host name.",
    ),
}).description('Sync between machines')

/** What the sync service runs with. */
export interface SyncSettings {
  readonly kind: 'on'
  readonly target: { readonly kind: 'folder'; readonly path: string } | { readonly kind: 'git'; readonly url: string }
  /** The target as it may be shown: a URL's user part masked. */
  readonly shown: string
  /** Credential reference of the passphrase; null: plain files. */
  readonly passphraseRef: string | null
  readonly sensitive: boolean
  /** 0: no timer. */
  readonly intervalMs: number
}

/** The settings read: sync on, off, or why they cannot be used (nothing syncs then). */
export type SyncSettingsRead =
  | SyncSettings
  | { readonly kind: 'off' }
  | { readonly kind: 'error'; readonly message: string }

/**
 * Read the raw sync settings.
 * @param raw - the values (from Config or the settings card); missing fields take their defaults.
 * @returns the settings, off, or an error in words that names the setting.
 */
export function readSyncSettings(raw: Partial<Record<keyof SyncConfig, unknown>>): SyncSettingsRead {
  const targetText = raw.syncTarget ?? SYNC_DEFAULTS.syncTarget
  if (typeof targetText !== 'string')
    return { kind: 'error', message: 'syncTarget must be text: an absolute folder path or a git remote URL' }
  const target = parseSyncTarget(targetText)
  if (target.kind === 'off') return { kind: 'off' }
  if (target.kind === 'invalid') return { kind: 'error', message: `syncTarget: ${target.reason}` }

  const ref = raw.syncPassphraseRef ?? SYNC_DEFAULTS.syncPassphraseRef
  if (typeof ref !== 'string' || (ref.trim() !== '' && !CREDENTIAL_REF.test(ref.trim()))) {
    return {
      kind: 'error',
      message:
        'syncPassphraseRef must name a credential (letters, digits, _ . -), not hold the passphrase itself; leave it empty for plain files',
    }
  }
  const sensitive = raw.syncSensitive ?? SYNC_DEFAULTS.syncSensitive
  if (typeof sensitive !== 'boolean') return { kind: 'error', message: 'syncSensitive must be true or false' }
  const minutes = raw.syncIntervalMinutes ?? SYNC_DEFAULTS.syncIntervalMinutes
  if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 0 || minutes > MAX_INTERVAL_MINUTES) {
    return {
      kind: 'error',
      message: `syncIntervalMinutes must be a whole number of minutes from 0 (no timer) to ${MAX_INTERVAL_MINUTES}`,
    }
  }
  return {
    kind: 'on',
    target: target.kind === 'folder' ? { kind: 'folder', path: target.path } : { kind: 'git', url: target.url },
    shown: target.kind === 'folder' ? target.path : maskUrl(target.url),
    passphraseRef: ref.trim() === '' ? null : ref.trim(),
    sensitive,
    intervalMs: minutes * 60_000,
  }
}

/**
 * The device name a setting asks for: whitespace and control characters collapsed to single spaces, trimmed, cut to
 * the longest name the store keeps.
 * @param raw - the `syncDeviceName` value (anything that is not text counts as empty).
 * @returns the name, or null to follow the host name.
 */
export function readDeviceName(raw: unknown): string | null {
  if (typeof raw !== 'string') return null
  const name = raw
    .replace(/[\s\u0000-\u001f\u007f]+/gu, ' ')
    .trim()
    .slice(0, MAX_DEVICE_NAME)
    .trim()
  return name === '' ? null : name
}
