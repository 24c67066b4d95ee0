/**
 * Optional encryption of a segment's body with the user's passphrase: AES-256-GCM (authenticated: a wrong passphrase
 * or an altered byte fails the tag, never yields garbage), the header's identifying fields bound as additional data.
 * Keys: scrypt turns the passphrase and a writer's salt into a master key (slow on purpose, so once per writer salt
 * and process, cached), and HKDF-SHA256 turns the master key and a salt of the file's own into that file's key, so
 * every file has its own key without paying scrypt per file.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, scryptSync } from 'node:crypto'

/** How a body was encrypted, as the header records it. */
export interface CipherParams {
  readonly alg: 'aes-256-gcm'
  readonly kdf: 'scrypt+hkdf-sha256'
  /** scrypt cost parameters. */
  readonly n: number
  readonly r: number
  readonly p: number
  /** base64 of the writer's 16-byte scrypt salt. */
  readonly kdfSalt: string
  /** base64 of the file's 16-byte HKDF salt, the 12-byte nonce and the 16-byte tag. */
  readonly salt: string
  readonly iv: string
  readonly tag: string
}

/** scrypt cost for new files: 2^15 with r = 8 takes about 32 MiB and tens of milliseconds. */
export const SCRYPT_COST = { n: 2 ** 15, r: 8, p: 1 } as const

/** The most memory a file's recorded scrypt cost may ask for; a larger one is refused rather than run. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024

/** A decryption result. */
export type Opened = { readonly ok: true; readonly plain: Buffer } | { readonly ok: false; readonly reason: string }

/** Encrypts and decrypts segment bodies with one passphrase. */
export class SegmentCipher {
  private readonly passphrase: string
  private readonly masters = new Map<string, Buffer>()
  /** The scrypt salt this instance writes under: one per process, so it derives its master key once. */
  private readonly writerSalt = randomBytes(16)

  /** @param passphrase - the user's passphrase (never stored by this class beyond its lifetime). */
  constructor(passphrase: string) {
    if (passphrase === '') throw new TypeError('an empty passphrase encrypts nothing')
    this.passphrase = passphrase
  }

  /**
   * Encrypt a body under a fresh salt and nonce.
   * @param plain - the body.
   * @param aad - the header's identifying fields, bound to the body.
   * @returns the ciphertext and the parameters the header records.
   */
  seal(plain: Buffer, aad: string): { readonly cipher: Buffer; readonly params: CipherParams } {
    const salt = randomBytes(16)
    const iv = randomBytes(12)
    const key = this.keyFor(this.writerSalt, salt, SCRYPT_COST)
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    cipher.setAAD(Buffer.from(aad, 'utf8'))
    const body = Buffer.concat([cipher.update(plain), cipher.final()])
    return {
      cipher: body,
      params: {
        alg: 'aes-256-gcm',
        kdf: 'scrypt+hkdf-sha256',
        ...SCRYPT_COST,
        kdfSalt: this.writerSalt.toString('base64'),
        salt: salt.toString('base64'),
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
      },
    }
  }

  /**
   * Decrypt a body.
   * @param body - the ciphertext.
   * @param params - the header's cipher parameters.
   * @param aad - the header's identifying fields.
   * @returns the body, or why it does not open (wrong passphrase and altered file read the same to GCM).
   */
  open(body: Buffer, params: CipherParams, aad: string): Opened {
    if (128 * params.r * params.n * params.p > MAX_SCRYPT_MEMORY)
      return { ok: false, reason: 'the file asks for a key derivation cost this plugin does not run' }
    const kdfSalt = Buffer.from(params.kdfSalt, 'base64')
    const salt = Buffer.from(params.salt, 'base64')
    const iv = Buffer.from(params.iv, 'base64')
    const tag = Buffer.from(params.tag, 'base64')
    if (kdfSalt.length < 16 || salt.length < 16 || iv.length !== 12 || tag.length !== 16)
      return { ok: false, reason: "the file's cipher parameters are damaged" }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.keyFor(kdfSalt, salt, params), iv)
      decipher.setAAD(Buffer.from(aad, 'utf8'))
      decipher.setAuthTag(tag)
      return { ok: true, plain: Buffer.concat([decipher.update(body), decipher.final()]) }
    } catch {
      // GCM's tag check failed: the passphrase is not the one the file was sealed with, or the file was altered.
      return {
        ok: false,
        reason: 'the passphrase does not open this file (or the file was altered after it was sealed)',
      }
    }
  }

  /** The file's key: HKDF over the (cached) scrypt master key of the writer's salt, with the file's salt. */
  private keyFor(
    kdfSalt: Buffer,
    fileSalt: Buffer,
    cost: { readonly n: number; readonly r: number; readonly p: number },
  ): Buffer {
    const id = `${kdfSalt.toString('base64')}:${cost.n}:${cost.r}:${cost.p}`
    let master = this.masters.get(id)
    if (master === undefined) {
      master = scryptSync(this.passphrase, kdfSalt, 32, {
        N: cost.n,
        r: cost.r,
        p: cost.p,
        maxmem: MAX_SCRYPT_MEMORY + 1024 * 1024,
      })
      this.masters.set(id, master)
    }
    return Buffer.from(hkdfSync('sha256', master, fileSalt, 'dsh-fact-memory sync segment', 32))
  }
}
