// Password hashing with scrypt (N=2^15, r=8, p=1), stored as scrypt$N$r$p$salt$hash. Comparison is
// constant-time. The scrypt work runs on libuv's thread pool, not on the event loop.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const N = 2 ** 15
const R = 8
const P = 1
const KEYLEN = 32

function scryptAsync (password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keylen, opts, (err, key) => err ? reject(err) : resolve(key)))
}

export async function hashPassword (password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(password, salt, KEYLEN, { N, r: R, p: P, maxmem: 64 * 2 ** 20 })
  return ['scrypt', N, R, P, salt.toString('base64'), key.toString('base64')].join('$')
}

export async function verifyPassword (password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const key = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length,
    { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 2 ** 20 })
  return timingSafeEqual(key, expected)
}

/** A hash of a random password: verifying against it costs the same as a real user's check. */
export const DUMMY_HASH_PROMISE = hashPassword(randomBytes(16).toString('hex'))

export function generatePassword (): string {
  return randomBytes(18).toString('base64url')
}
