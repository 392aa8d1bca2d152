// The outbound side of cascaded WMS and WMTS stores: every request to a remote server goes through
// here, with the guards of files/remote-fetch.ts (url.* uploads):
// - http: and https: only, to a host on the allow-list (MAPWARDEN_CASCADE_HOSTS; empty, the default:
//   no remote is reached);
// - every address the name resolves to is checked and the connection goes to a checked address;
//   loopback, private, link-local (the cloud metadata service) and reserved addresses are refused
//   unless the allow-list names that host exactly (a `*.example.org` entry never admits them);
// - no redirects (a remote map server has no reason to send one, and one could lead inward);
// - per store at most `maxConnections` requests at once (the others wait their turn), a connect and
//   a read deadline (the store's connectTimeout and readTimeout, seconds), a size cap, and retries of
//   a broken connection or a 5xx answer (not of an exception report: it would say the same again);
// - the user and password go as HTTP basic authentication; messages name the remote by scheme, host
//   and path, never with credentials or query.
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import dns from 'node:dns/promises'
import { hostAllowed, isPrivateAddress } from '../files/remote-fetch.js'
import { CascadeRemoteFailed, CascadeRemoteRefused, CascadeRemoteUnreachable, isMapwardenError } from '../errors.js'

export interface RemoteOptions {
  /** Host names (or IP literals) a store may name; `*.example.org` admits its subdomains. Empty: none. */
  allowedHosts: string[]
  /** Most bytes of one answer (a map, capabilities). */
  maxBytes?: number
  /** Further attempts after a broken connection or a 5xx answer. */
  retries?: number
}

export interface RemoteCall {
  /** Key of the connection limit (the store's qualified name). */
  key: string
  maxConnections: number
  connectTimeout: number
  readTimeout: number
  user?: string
  password?: string
}

export interface RemoteAnswer { status: number, contentType: string, body: Buffer }

/** The URL as a message shows it: scheme, host and path, no credentials or query. */
export function shownUrl (url: URL | string): string {
  let u: URL
  if (typeof url === 'string') {
    try { u = new URL(url) } catch { return JSON.stringify(url.trim().slice(0, 200)) }
  } else u = url
  return JSON.stringify(`${u.protocol}//${u.host}${u.pathname}`.slice(0, 200))
}

/** A small counting semaphore per key: at most `max` holders, the others wait in order. */
function createLimits () {
  const slots = new Map<string, { busy: number, waiting: Array<() => void> }>()
  return async function limited<T> (key: string, max: number, fn: () => Promise<T>): Promise<T> {
    let s = slots.get(key)
    if (!s) { s = { busy: 0, waiting: [] }; slots.set(key, s) }
    const slot = s
    if (slot.busy >= max) await new Promise<void>((resolve) => slot.waiting.push(resolve))
    else slot.busy++
    try { return await fn() } finally {
      const next = slot.waiting.shift()
      if (next) next() // the slot passes on
      else if (--slot.busy === 0) slots.delete(key)
    }
  }
}

class Retryable extends Error {}

export function createRemote (opts: RemoteOptions) {
  const allowed = opts.allowedHosts.map((h) => h.toLowerCase())
  const maxBytes = opts.maxBytes ?? 64 * 2 ** 20
  const retries = opts.retries ?? 2
  const limited = createLimits()

  /** Refuses a URL this server may not call (scheme, allow-list); for a store's checks and every call. */
  function check (text: string): URL {
    let url: URL
    try { url = new URL(text.trim()) } catch { throw CascadeRemoteRefused(shownUrl(text), 'it is not a valid URL') }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw CascadeRemoteRefused(shownUrl(url), `${url.protocol.slice(0, 20)} URLs are not called (http: and https: only)`)
    if (url.username !== '' || url.password !== '') throw CascadeRemoteRefused(shownUrl(url), 'credentials go in the store\'s user and password, not in the URL')
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
    if (allowed.length === 0) throw CascadeRemoteRefused(shownUrl(url), 'cascading is off (MAPWARDEN_CASCADE_HOSTS is empty)')
    if (!hostAllowed(host, allowed)) throw CascadeRemoteRefused(shownUrl(url), `its host ${JSON.stringify(host.slice(0, 100))} is not in MAPWARDEN_CASCADE_HOSTS`)
    return url
  }

  /** The checked address to connect to: a private one only when the allow-list names the host itself. */
  async function resolve (url: URL): Promise<{ address: string, family: number }> {
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
    let addresses: Array<{ address: string, family: number }>
    if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }]
    else {
      try { addresses = await dns.lookup(host, { all: true, verbatim: true }) } catch { throw CascadeRemoteUnreachable(shownUrl(url), 'its host name does not resolve') }
    }
    if (addresses.length === 0) throw CascadeRemoteUnreachable(shownUrl(url), 'its host name does not resolve')
    if (!allowed.includes(host) && addresses.some((a) => isPrivateAddress(a.address))) {
      throw CascadeRemoteRefused(shownUrl(url), 'its host resolves to a loopback, private, link-local or reserved address, which MAPWARDEN_CASCADE_HOSTS does not name')
    }
    return addresses[0]
  }

  function once (url: URL, to: { address: string, family: number }, call: RemoteCall): Promise<RemoteAnswer> {
    return new Promise<RemoteAnswer>((resolve, reject) => {
      const lookup = (_host: string, o: { all?: boolean }, cb: (...args: any[]) => void) => {
        if (o.all) cb(null, [to])
        else cb(null, to.address, to.family)
      }
      const headers: Record<string, string> = { 'user-agent': 'mapwarden', accept: '*/*', 'accept-encoding': 'identity' }
      if (call.user) headers.authorization = 'Basic ' + Buffer.from(`${call.user}:${call.password ?? ''}`).toString('base64')
      let done = false
      const fail = (err: Error) => { if (!done) { done = true; clearTimeout(connectTimer); req.destroy(); reject(err) } }
      const req = (url.protocol === 'https:' ? https : http).request(url, { method: 'GET', agent: false, lookup: lookup as any, headers }, (res) => {
        clearTimeout(connectTimer)
        const chunks: Buffer[] = []
        let seen = 0
        res.on('data', (c: Buffer) => {
          seen += c.length
          if (seen > maxBytes) fail(CascadeRemoteFailed(shownUrl(url), `its answer is larger than ${maxBytes} bytes`))
          else chunks.push(c)
        })
        res.on('end', () => {
          if (done) return
          done = true
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) })
        })
        res.on('error', () => fail(new Retryable('the connection broke off')))
      })
      // connectTimeout: until the answer's head; readTimeout: the longest silence after that.
      const connectTimer = setTimeout(() => fail(new Retryable(`no answer within ${call.connectTimeout} s`)), call.connectTimeout * 1000)
      req.setTimeout(call.readTimeout * 1000, () => fail(new Retryable(`nothing read for ${call.readTimeout} s`)))
      req.on('error', (err: NodeJS.ErrnoException) => fail(new Retryable(err.code === 'ECONNREFUSED' ? 'the connection was refused' : 'the connection failed or broke off')))
      req.end()
    })
  }

  /** One GET to a checked remote URL, within the store's connection limit, retried when the
   *  connection fails or the remote answers 5xx. A refused URL or a final failure is a domain error. */
  async function get (text: string, call: RemoteCall): Promise<RemoteAnswer> {
    const url = check(text)
    return await limited(call.key, Math.max(1, call.maxConnections), async () => {
      let last = ''
      for (let attempt = 0; attempt <= retries; attempt++) {
        try {
          const to = await resolve(url)
          const answer = await once(url, to, call)
          if (answer.status >= 500 && attempt < retries) { last = `it answered HTTP ${answer.status}`; continue }
          if (answer.status >= 300 && answer.status < 400) throw CascadeRemoteFailed(shownUrl(url), `it answered HTTP ${answer.status} (redirects are not followed)`)
          if (answer.status !== 200) throw CascadeRemoteFailed(shownUrl(url), `it answered HTTP ${answer.status}`)
          return answer
        } catch (err) {
          if (isMapwardenError(err)) throw err
          last = (err as Error).message
          if (!(err instanceof Retryable)) break
        }
      }
      throw CascadeRemoteUnreachable(shownUrl(url), `${last} (${retries + 1} attempts)`)
    })
  }

  return { check, get }
}
export type Remote = ReturnType<typeof createRemote>
