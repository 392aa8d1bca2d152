// [hostile #56] url.* uploads naming remote URLs (SSRF): url.geotiff, url.worldimage,
// url.imagemosaic, url.shp and url.gpkg. Refused by default (MAPWARDEN_REMOTE_UPLOAD_HOSTS empty),
// refused for hosts off the list, refused for loopback, private, link-local (169.254.169.254) and
// IPv4-mapped addresses even when listed, unless the test-only MAPWARDEN_REMOTE_UPLOAD_ALLOW_PRIVATE
// is set; with it, redirects off the list are refused, bodies past the cap are 413 (with and without
// a Content-Length), a silent server ends at the deadline. Every refusal: a text/plain message
// naming the problem that leaks nothing, the canary or test server never reached where it should not
// be, the data directory and the catalog unchanged, no temp file left.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE } from '../helper.js'
import { manifest } from '../manifest.js'
import { canaryFor } from './canary.js'
import { assertMessage, tempFiles } from './refuse.js'
import { remoteServer } from '../remote-server.js'
import { isPrivateAddress } from '../../services/files/remote-fetch.js'

const WS = `${BASE}/rest/workspaces/ws`
const UPLOADS = ['coveragestores/c/url.geotiff', 'coveragestores/c/url.worldimage', 'coveragestores/c/url.imagemosaic', 'datastores/d/url.shp', 'datastores/d/url.gpkg']

async function app (t: Test, opts: Record<string, unknown>): Promise<FastifyInstance> {
  const a = await build(t, opts)
  await a.workspaces.create({ name: 'ws' })
  return a
}

/** Sends `body` to every url.* upload; each is refused as `status` and `message` say, and nothing changes. */
async function refusedEverywhere (t: Test, a: FastifyInstance, body: string, status: number, message: RegExp) {
  const dataDir = a.config.dataDir
  const before = manifest(dataDir)
  const temps = tempFiles(dataDir)
  for (const upload of UPLOADS) {
    const res = await a.inject({ method: 'PUT', url: `${WS}/${upload}`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: body })
    assertMessage(t as any, res, status, message, `${upload} ${body}`, dataDir)
  }
  t.same(manifest(dataDir), before, `${body}: data directory unchanged`)
  t.same(tempFiles(dataDir), temps, `${body}: no temp file left`)
  for (const store of ['coveragestores/c.json', 'datastores/d.json']) {
    t.equal((await a.inject({ url: `${WS}/${store}`, headers: ADMIN })).statusCode, 404, `${body}: no store ${store}`)
  }
}

t.test('[hostile #56] remote uploads are off by default: the canary on 127.0.0.1 is never reached', async (t) => {
  const canary = await canaryFor(t)
  const a = await app(t, {})
  for (const body of [`${canary.url}/x.tif`, `https://127.0.0.1:${canary.port}/x.tif`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/x.zip']) {
    await refusedEverywhere(t, a, body, 403, /refused: remote uploads are off \(MAPWARDEN_REMOTE_UPLOAD_HOSTS is empty\)/)
  }
  t.equal(canary.hits(), 0, `no request reached the canary (${canary.paths().join(', ')})`)
})

t.test('[hostile #56] listed hosts that are loopback, private or link-local are refused before any connection', async (t) => {
  const canary = await canaryFor(t)
  const a = await app(t, { remoteUploadHosts: ['127.0.0.1', 'localhost', '10.0.0.1', '169.254.169.254', '::1', '::ffff:7f00:1', '192.168.1.1'] })
  for (const body of [
    `${canary.url}/x.tif`, `http://localhost:${canary.port}/x.tif`, `http://[::1]:${canary.port}/x.tif`,
    `http://[::ffff:127.0.0.1]:${canary.port}/x.tif`, `http://2130706433:${canary.port}/x.tif`, `http://0x7f.1:${canary.port}/x.tif`,
    'http://10.0.0.1/x.zip', 'http://169.254.169.254/latest/meta-data/iam/', 'http://192.168.1.1/x.zip'
  ]) {
    await refusedEverywhere(t, a, body, 403, /refused: its host resolves to a loopback, private, link-local or reserved address/)
  }
  await refusedEverywhere(t, a, 'http://data.example.org/x.zip', 403, /refused: its host "data.example.org" is not in MAPWARDEN_REMOTE_UPLOAD_HOSTS/)
  for (const body of [`gopher://127.0.0.1:${canary.port}/x`, `ftp://127.0.0.1:${canary.port}/x.zip`]) {
    await refusedEverywhere(t, a, body, 403, /URLs are not fetched \(http: and https: only\)/)
  }
  t.equal(canary.hits(), 0, `no request reached the canary (${canary.paths().join(', ')})`)
})

t.test('[hostile #56] with the test-only escape: redirects off the list, oversized bodies and silent servers are refused', async (t) => {
  const canary = await canaryFor(t)
  const server = await remoteServer(t, {
    '/to-localhost': { status: 302, headers: { location: `http://localhost:${canary.port}/x.zip` } },
    '/to-metadata': { status: 301, headers: { location: 'http://169.254.169.254/latest/meta-data/' } },
    '/to-file': { status: 302, headers: { location: 'file:///etc/passwd' } },
    '/loop': { status: 302, headers: { location: '/loop' } },
    '/big': Buffer.alloc(256 * 1024, 0x41),
    '/stream': { chunks: { size: 16 * 1024, count: 64 } },
    '/silent': { hang: true }
  })
  const a = await app(t, { remoteUploadHosts: ['127.0.0.1'], remoteUploadAllowPrivate: true, uploadLimit: 64 * 1024, remoteUploadTimeout: 1 })
  await refusedEverywhere(t, a, `${server.url}/to-localhost`, 403, /its host "localhost" is not in MAPWARDEN_REMOTE_UPLOAD_HOSTS/)
  await refusedEverywhere(t, a, `${server.url}/to-metadata`, 403, /its host "169.254.169.254" is not in MAPWARDEN_REMOTE_UPLOAD_HOSTS/)
  await refusedEverywhere(t, a, `${server.url}/to-file`, 403, /file: URLs are not fetched/)
  await refusedEverywhere(t, a, `${server.url}/loop`, 400, /more than 5 redirects/)
  await refusedEverywhere(t, a, `${server.url}/big`, 413, /is larger than the upload limit of 65536 bytes/)
  await refusedEverywhere(t, a, `${server.url}/stream`, 413, /is larger than the upload limit of 65536 bytes/)
  await refusedEverywhere(t, a, `${server.url}/silent`, 400, /no complete answer within 1 s/)
  t.equal(canary.hits(), 0, 'the redirect target on localhost was never reached')
})

t.test('[hostile #56] which addresses are private', async (t) => {
  for (const a of ['127.0.0.1', '127.1.2.3', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1',
    '64:ff9b::a00:1', '2002:7f00:1::', 'ff02::1', 'not-an-ip']) t.ok(isPrivateAddress(a), `${a} is refused`)
  for (const a of ['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700::1111', '2a00:1450:4001::1']) t.notOk(isPrivateAddress(a), `${a} is public`)
})
