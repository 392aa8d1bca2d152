// The master (keystore) password, as GeoServer's MasterPasswordController exposes it. It is stored
// in the catalog database encrypted with AES-256-GCM under a key that is NOT in the database: a
// secret from the configuration (MAPWARDEN_MASTER_KEY, stretched with HKDF) or a random key in
// <dataDir>/security/master.key, created 0600 in a 0700 directory. A copy of catalog.db alone
// does not reveal the password. A change is one statement: after a crash the old or the new
// password is stored, never neither. The first start generates a random password (as GeoServer
// does for data directories it creates); administrators read it with GET masterpw.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual, createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { MasterKeyMismatch, MasterPasswordMissing, MasterPasswordRefused } from '../errors.js'
import { generatePassword } from '../auth/passwords.js'
import { noFaults, type FaultPoint } from '../faults.js'
import { createKeyedQueue } from '../keyed-queue.js'
import type { RuleStore } from './store.js'

export interface MasterPasswordDeps {
  settings: Pick<RuleStore, 'getSetting' | 'setSetting'>
  dataDir: string
  /** Secret from the configuration; when unset a key file in the data directory is used. */
  secret?: string
  fault?: FaultPoint
}

export const MIN_LENGTH = 8
const SETTING = 'masterPassword'
const AAD = Buffer.from('mapwarden:masterPassword:v1')
// Secrets of the catalog (data store passwords) use the same key under their own associated data,
// so a store's token can never be passed off as the master password or the other way round.
const SECRET_AAD = Buffer.from('mapwarden:storeSecret:v1')
/** Prefix of a sealed secret on the wire, GeoServer's for its keystore-based encryption. */
export const SECRET_PREFIX = 'crypt2:'
export const KEY_FILE = path.join('security', 'master.key')

function keyFromSecret (secret: string): Buffer {
  if (secret.length < 16) throw MasterKeyMismatch('MAPWARDEN_MASTER_KEY must be at least 16 characters')
  return Buffer.from(hkdfSync('sha256', secret, 'mapwarden-master-password', 'aes-256-gcm key', 32))
}

/** Reads the key file, creating it (0600, in a 0700 directory) when absent; tightens loose modes. */
export function loadOrCreateKeyFile (file: string, { create }: { create: boolean }): Buffer {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  if (!fs.existsSync(file)) {
    if (!create) throw MasterKeyMismatch(`the key file ${KEY_FILE} is missing`)
    const fd = fs.openSync(file, 'wx', 0o600)
    try {
      fs.writeSync(fd, randomBytes(32).toString('base64') + '\n')
      fs.fsyncSync(fd)
    } finally { fs.closeSync(fd) }
  }
  if (process.platform !== 'win32' && (fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600)
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')
  if (key.length !== 32) throw MasterKeyMismatch(`the key file ${KEY_FILE} is not a 32-byte base64 key`)
  return key
}

export function encrypt (key: Buffer, plain: string, aad: Buffer = AAD): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(aad)
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return ['v1', iv, cipher.getAuthTag(), ct].map((p) => typeof p === 'string' ? p : p.toString('base64url')).join('.')
}

export function decrypt (key: Buffer, stored: string, aad: Buffer = AAD): string {
  const [v, iv, tag, ct] = stored.split('.')
  if (v !== 'v1' || ct === undefined) throw MasterKeyMismatch('unknown format')
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
    decipher.setAAD(aad)
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8')
  } catch {
    throw MasterKeyMismatch('wrong key')
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest()
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b))

export async function openMasterPassword ({ settings, dataDir, secret, fault = noFaults }: MasterPasswordDeps) {
  const stored = await settings.getSetting(SETTING)
  const key = secret !== undefined ? keyFromSecret(secret) : loadOrCreateKeyFile(path.join(dataDir, KEY_FILE), { create: stored === undefined })
  if (stored === undefined) await settings.setSetting(SETTING, encrypt(key, generatePassword()))
  else decrypt(key, stored) // refuse to start with a key that does not open the stored password

  const current = async () => decrypt(key, (await settings.getSetting(SETTING))!)
  // Changes run one at a time: each checks the old password against what the previous one stored.
  const serialized = createKeyedQueue()
  return {
    get: current,
    /** A secret sealed with the master key: `crypt2:<token>`, what GeoServer shows for an encrypted password. */
    sealSecret (plain: string): string { return SECRET_PREFIX + encrypt(key, plain, SECRET_AAD) },
    /** The plain text of a sealed secret; undefined when it is not one this key sealed. */
    openSecret (token: string): string | undefined {
      if (!token.startsWith(SECRET_PREFIX)) return undefined
      try { return decrypt(key, token.slice(SECRET_PREFIX.length), SECRET_AAD) } catch { return undefined }
    },
    /** GeoServer's rules: both present (400), old must match and new must be 8+ characters and differ (422). */
    change (oldValue: unknown, newValue: unknown): Promise<void> {
      return serialized(SETTING, async () => {
        const oldPw = typeof oldValue === 'string' ? oldValue.trim() : ''
        const newPw = typeof newValue === 'string' ? newValue.trim() : ''
        if (!oldPw || !newPw) throw MasterPasswordMissing()
        if (!sameSecret(oldPw, await current())) throw MasterPasswordRefused('the current master password is not correct')
        if (newPw.length < MIN_LENGTH) throw MasterPasswordRefused(`the new master password must have at least ${MIN_LENGTH} characters`)
        if (sameSecret(newPw, oldPw)) throw MasterPasswordRefused('the new master password must differ from the current one')
        // The new ciphertext (the "new keystore") exists only in memory until one statement stores
        // it: a crash before that keeps the old password, after it the new one, never neither.
        const sealed = encrypt(key, newPw)
        if (decrypt(key, sealed) !== newPw) throw MasterKeyMismatch('the new master password could not be sealed')
        fault('masterpw.afterNewKeystore')
        fault('masterpw.beforeCommit')
        await settings.setSetting(SETTING, sealed)
        fault('masterpw.afterCommit')
      })
    }
  }
}
export type MasterPassword = Awaited<ReturnType<typeof openMasterPassword>>
