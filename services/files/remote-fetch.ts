// The remote side of GeoServer's `url.*` uploads (RESTUtils.handleURLUpload: the body is a URL whose
// bytes become the upload), with the guards GeoServer lacks:
// - only http: and https:, and only to a host on the allow-list (MAPWARDEN_REMOTE_UPLOAD_HOSTS;
//   empty, the default: every remote URL is refused);
// - every address the host name resolves to is checked, and the connection goes to a checked
//   address (so a second DNS answer cannot move it): loopback, private, link-local (the cloud
//   metadata service), CGNAT, multicast and reserved ranges, and IPv6 forms embedding them, are
//   refused unless MAPWARDEN_REMOTE_UPLOAD_ALLOW_PRIVATE (test only) says otherwise;
// - redirects are followed by the same rules (at most MAX_REDIRECTS), so one cannot lead inward;
// - a size cap on the bytes received (MAPWARDEN_UPLOAD_LIMIT) and a deadline on the whole transfer;
// - the body streams to a file (no decompression: what arrives is what is counted), never held whole.
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import dns from 'node:dns/promises'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { isMapwardenError, RemoteUploadFailed, RemoteUploadRefused, RemoteUploadTooLarge } from '../errors.js'

export interface RemoteFetchOptions {
  /** Host names (or IP literals) a URL may name; `*.example.org` admits its subdomains. Empty: none. */
  allowedHosts: string[]
  /** Test only: connect to loopback and private addresses too. */
  allowPrivateAddresses: boolean
  maxBytes: number
  timeoutSeconds: number
}

export type RemoteFetch = (url: string, dest: string) => Promise<void>

export const MAX_REDIRECTS = 5

/** Whether an upload body names a remote URL (else it is a file: URL or a path). */
export const isRemoteUrl = (text: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(text.trim()) && !/^file:/i.test(text.trim())

// Addresses no upload may reach (RFC 6890 special-purpose registries): IPv4, the same as IPv4-mapped
// IPv6, and IPv6's own loopback, unique-local, link-local, multicast, documentation, NAT64, 6to4
// and Teredo ranges (the last three embed an IPv4 address).
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4]
]
const V6: Array<[string, number]> = [
  ['::', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 32], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8]
]
const blocked = new net.BlockList()
for (const [a, p] of V4) {
  blocked.addSubnet(a, p, 'ipv4')
  blocked.addSubnet(`::ffff:${a}`, 96 + p, 'ipv6')
}
for (const [a, p] of V6) blocked.addSubnet(a, p, 'ipv6')

/** Whether an address is one an upload may not reach (loopback, private, link-local, reserved...). */
export function isPrivateAddress (address: string): boolean {
  const family = net.isIP(address)
  if (family === 0) return true
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** The URL as a message shows it: scheme, host and path, no credentials or query. */
function shown (url: URL | string): string {
  if (typeof url === 'string') return JSON.stringify(url.trim().slice(0, 200))
  return JSON.stringify(`${url.protocol}//${url.host}${url.pathname}`.slice(0, 200))
}

export function hostAllowed (host: string, allowed: string[]): boolean {
  const h = host.toLowerCase()
  return allowed.some((a) => a.startsWith('*.') ? h.endsWith(a.slice(1)) && h.length > a.length - 1 : h === a)
}

/** Counts the bytes going through and fails past `max`. */
function capped (max: number, url: URL): Transform {
  let seen = 0
  return new Transform({
    transform (chunk: Buffer, _enc, done) {
      seen += chunk.length
      if (seen > max) done(RemoteUploadTooLarge(shown(url), max))
      else done(null, chunk)
    }
  })
}

export function createRemoteFetch (opts: RemoteFetchOptions): RemoteFetch {
  const allowed = opts.allowedHosts.map((h) => h.toLowerCase())

  /** The checked address to connect to for `url`'s host. */
  const resolve = async (url: URL): Promise<{ address: string, family: number }> => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw RemoteUploadRefused(shown(url), `${url.protocol.slice(0, 20)} URLs are not fetched (http: and https: only)`)
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (allowed.length === 0) throw RemoteUploadRefused(shown(url), 'remote uploads are off (MAPWARDEN_REMOTE_UPLOAD_HOSTS is empty)')
    if (!hostAllowed(host, allowed)) throw RemoteUploadRefused(shown(url), `its host ${JSON.stringify(host.slice(0, 100))} is not in MAPWARDEN_REMOTE_UPLOAD_HOSTS`)
    let addresses: Array<{ address: string, family: number }>
    if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }]
    else {
      try { addresses = await dns.lookup(host, { all: true, verbatim: true }) } catch { throw RemoteUploadFailed(shown(url), 'its host name does not resolve') }
    }
    if (addresses.length === 0) throw RemoteUploadFailed(shown(url), 'its host name does not resolve')
    // Every address is checked: a name that resolves to one public and one private address is refused.
    if (!opts.allowPrivateAddresses && addresses.some((a) => isPrivateAddress(a.address))) {
      throw RemoteUploadRefused(shown(url), 'its host resolves to a loopback, private, link-local or reserved address')
    }
    return addresses[0]
  }

  /** One GET to the checked address; resolves with the response head. */
  const get = (url: URL, to: { address: string, family: number }, signal: AbortSignal) => new Promise<http.IncomingMessage>((resolve, reject) => {
    const lookup = (_host: string, o: { all?: boolean }, cb: (...args: any[]) => void) => {
      if (o.all) cb(null, [to])
      else cb(null, to.address, to.family)
    }
    const req = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'GET', agent: false, signal, lookup: lookup as any, headers: { 'user-agent': 'mapwarden', accept: '*/*', 'accept-encoding': 'identity' }
    }, resolve)
    req.on('error', reject)
    req.end()
  })

  return async function fetchRemote (text: string, dest: string): Promise<void> {
    let url: URL
    try { url = new URL(text.trim()) } catch { throw RemoteUploadFailed(shown(text), 'it is not a valid URL') }
    const signal = AbortSignal.timeout(opts.timeoutSeconds * 1000)
    try {
      for (let hop = 0; ; hop++) {
        const to = await resolve(url)
        const res = await get(url, to, signal)
        const status = res.statusCode ?? 0
        if (status >= 300 && status < 400 && res.headers.location !== undefined) {
          res.resume()
          if (hop >= MAX_REDIRECTS) throw RemoteUploadFailed(shown(url), `more than ${MAX_REDIRECTS} redirects`)
          try { url = new URL(res.headers.location, url) } catch { throw RemoteUploadFailed(shown(url), 'it redirects to an invalid URL') }
          continue
        }
        if (status !== 200) {
          res.resume()
          throw RemoteUploadFailed(shown(url), `it answered HTTP ${status}`)
        }
        const length = Number(res.headers['content-length'])
        if (Number.isFinite(length) && length > opts.maxBytes) {
          res.destroy()
          throw RemoteUploadTooLarge(shown(url), opts.maxBytes)
        }
        await pipeline(res, capped(opts.maxBytes, url), fs.createWriteStream(dest, { flags: 'wx' }), { signal })
        return
      }
    } catch (err) {
      await fs.promises.rm(dest, { force: true })
      if (isMapwardenError(err)) throw err
      if (signal.aborted) throw RemoteUploadFailed(shown(url), `no complete answer within ${opts.timeoutSeconds} s`)
      throw RemoteUploadFailed(shown(url), 'the connection failed or broke off')
    }
  }
}
