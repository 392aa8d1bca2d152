// Hostile granule queries, deletes and harvests (hostile cases 53-57).
// Filters never leave their literals and never widen a delete; harvesting never opens anything
// outside the configured roots, reaches no network (a loopback canary counts hits) and a second
// harvest of the same file changes nothing.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../helper.js'
import { canary } from '../manifest.js'
import { makeTiff, makeZip, INDEXER, TIMEREGEX, ELEVATIONREGEX } from '../fixtures/mosaics/make.js'
import { assertRefused, snapshot, treeManifest } from './assert-b.js'
import { findGranules } from '../../services/mosaics/scan.js'
import { statusOf } from '../../plugins/infra/errors.js'
import { appRows } from '../fixtures/catalog-rows.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const G = `${R}/temp/coverages/temp/index/granules`
const rows = (_x: number, y: number) => y
const GRANULE_1 = makeTiff({ width: 20, height: 20, bbox: [0, 40, 10, 50], value: rows })
const GRANULE_2 = makeTiff({ width: 20, height: 20, bbox: [5, 45, 15, 55], value: rows })
const GETS = [`${G}.json`, `${R}/temp/coverages/temp.json`, `${R}.json`]

async function setup (t: any, opts: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = await build(t, opts)
  await app.workspaces.create({ name: 'ws' })
  const zip = await makeZip({ 'indexer.properties': INDEXER, 'timeregex.properties': TIMEREGEX, 'elevationregex.properties': ELEVATIONREGEX,
    'temp_20081101T000000_0.tif': GRANULE_1, 'temp_20081102T000000_100.tif': GRANULE_2 })
  const r = await app.inject({ method: 'PUT', url: `${R}/temp/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(r.statusCode, 200)
  return app
}

const count = async (app: FastifyInstance): Promise<number> => (await appRows(app, 'SELECT count(*) AS n FROM mosaic_granules'))[0].n
const q = (filter: string) => 'filter=' + encodeURIComponent(filter)

t.test('[hostile #53] filters that try to break out of a literal or test values only: literal match or 400, row count unchanged', async (t) => {
  const app = await setup(t)
  const n = await count(app)
  // Quotes stay inside the literal: a literal match (none), and a DELETE that removes nothing.
  for (const filter of ["location = 'x'' OR ''1''=''1'", "location = 'x'' OR 1=1 --'", "location LIKE '%'' OR ''a''=''a'"]) {
    const before = await snapshot(app, GETS, ADMIN)
    const get = await app.inject({ url: `${G}.json?${q(filter)}`, headers: ADMIN })
    t.equal(get.statusCode, 200, filter)
    t.same(JSON.parse(get.body).features, [], `${filter}: matches nothing`)
    const del = await app.inject({ method: 'DELETE', url: `${G}.xml?${q(filter)}`, headers: ADMIN })
    t.equal(del.statusCode, 200, `${filter}: DELETE`)
    t.equal(await count(app), n, `${filter}: index row count unchanged`)
    t.same((await snapshot(app, GETS, ADMIN)), before, `${filter}: nothing changed`)
  }
  const bad: Array<[string, string | RegExp]> = [
    ["location IN ('a') OR 1=1", 'Invalid cql syntax: comparison at position 21 tests values only; name an attribute of the index'],
    ["elevation IN ('a') OR 1=1", /^Invalid cql syntax: comparison at position 22 tests values only/],
    ["location = 'a' OR 'a'='a'", /^Invalid cql syntax: comparison at position 18 tests values only/],
    ["'a' IN ('a')", 'Invalid cql syntax: IN at position 0 tests values only; name an attribute of the index'],
    ['1 BETWEEN 0 AND 2', /^Invalid cql syntax: BETWEEN at position 0 tests values only/],
    ["'x' LIKE '%'", /^Invalid cql syntax: LIKE at position 0 tests values only/],
    ["'x' IS NOT NULL", /^Invalid cql syntax: IS at position 0 tests values only/],
    ['TRUE = TRUE', /^Invalid cql syntax: comparison at position 0 tests values only/],
    ["NOT (location = 'a' AND 2 > 1)", /^Invalid cql syntax: comparison at position 24 tests values only/],
    ["strEndsWith(location,'x'')=true", /^Invalid cql syntax: (function strEndsWith is not supported|unterminated string)/],
    ["strEndsWith(location,'x')=true", 'Invalid cql syntax: function strEndsWith is not supported'],
    ["location = 'a'; DROP TABLE mosaic_granules; --", 'Invalid cql syntax: unexpected character ";" at position 14'],
    ["location = 'a' -- comment", /^Invalid cql syntax: /],
    ["location = 'a' /* c */ OR location = 'b'", /^Invalid cql syntax: /],
    ['"location\') OR 1=1 --" = \'a\'', /^Invalid cql syntax: unknown attribute/]
  ]
  for (const [filter, message] of bad) {
    for (const method of ['GET', 'DELETE'] as const) {
      const before = await snapshot(app, GETS, ADMIN)
      const res = await app.inject({ method, url: `${G}.xml?${q(filter)}`, headers: ADMIN })
      await assertRefused(t, app, res, { status: 400, message }, before, `${method} ${filter}`, GETS, ADMIN)
      t.equal(await count(app), n, `${method} ${filter}: index row count unchanged`)
    }
  }
})

t.test('[hostile #54] unknown attributes, functions and exec() are 400', async (t) => {
  const app = await setup(t)
  const n = await count(app)
  const bad: Array<[string, string | RegExp]> = [
    ['nosuch = 1', 'Invalid cql syntax: unknown attribute "nosuch"; the index has the_geom, location, ingestion, elevation'],
    ['"sqlite_master" = 1', /^Invalid cql syntax: unknown attribute "sqlite_master"/],
    ["strToUpperCase(location) = 'X'", 'Invalid cql syntax: function strToUpperCase is not supported'],
    ["exec('rm -rf /')", 'Invalid cql syntax: function exec is not supported'],
    ["location = exec('id')", 'Invalid cql syntax: function exec is not supported'],
    ["json_extract(attrs, '$.location') = 'x'", 'Invalid cql syntax: function json_extract is not supported'],
    ['the_geom = 1', /^Invalid cql syntax: geometry attribute the_geom can only be used in BBOX or INTERSECTS/],
    ['BBOX(location, 0, 0, 1, 1)', 'Invalid cql syntax: location is not the geometry attribute'],
    ['('.repeat(200) + 'INCLUDE' + ')'.repeat(200), /^Invalid cql syntax: filter nested deeper than 64 levels/],
    ['elevation = 1 AND '.repeat(1000) + 'INCLUDE', /^Invalid cql syntax: filter longer than 10000 characters/]
  ]
  for (const [filter, message] of bad) {
    for (const method of ['GET', 'DELETE'] as const) {
      const before = await snapshot(app, GETS, ADMIN)
      const res = await app.inject({ method, url: `${G}.json?${q(filter)}`, headers: ADMIN })
      await assertRefused(t, app, res, { status: 400, message }, before, `${method} ${filter.slice(0, 60)}`, GETS, ADMIN)
    }
  }
  t.equal(await count(app), n, 'index row count unchanged')
})

t.test('[hostile #55] DELETE granules: no filter, bad purge, any offset or limit are 400; GET paging is validated', async (t) => {
  const app = await setup(t)
  const n = await count(app)
  const cases: Array<[string, string, string]> = [
    ['DELETE', '', 'A filter is required to delete granules (use filter=INCLUDE to delete all of them)'],
    ['DELETE', 'filter=', 'A filter is required to delete granules (use filter=INCLUDE to delete all of them)'],
    ['DELETE', 'filter=INCLUDE&purge=bogus', 'Invalid purge value "bogus", allowed values are [NONE, METADATA, ALL]'],
    ['DELETE', 'filter=INCLUDE&offset=-1', 'offset and limit do not apply when deleting granules; narrow the filter instead (got "offset=-1")'],
    ['DELETE', 'filter=INCLUDE&limit=0', 'offset and limit do not apply when deleting granules; narrow the filter instead (got "limit=0")'],
    ['DELETE', 'filter=INCLUDE&offset=1&limit=1', 'offset and limit do not apply when deleting granules; narrow the filter instead (got "offset=1&limit=1")'],
    ['GET', 'offset=-1', 'Invalid offset value: "-1"'],
    ['GET', 'limit=0', 'Invalid limit value: "0"'],
    ['GET', 'limit=1e3', 'Invalid limit value: "1e3"'],
    ['GET', 'offset=99999999999999999999', 'Invalid offset value: "99999999999999999999"']
  ]
  for (const [method, query, message] of cases) {
    const before = await snapshot(app, GETS, ADMIN)
    const res = await app.inject({ method: method as 'GET', url: `${G}.xml?${query}`, headers: ADMIN })
    await assertRefused(t, app, res, { status: 400, message }, before, `${method} ?${query}`, GETS, ADMIN)
  }
  t.equal(await count(app), n, 'index row count unchanged')
})

t.test('[hostile #56] harvest outside the roots, through symlinks, of other hosts and schemes, and of devices: refused, nothing opened', async (t) => {
  const root = fs.realpathSync(tempDir(t, 'mwroot'))
  const outside = fs.realpathSync(tempDir(t, 'mwout'))
  fs.writeFileSync(path.join(outside, 'secret.tif'), GRANULE_1)
  fs.mkdirSync(path.join(root, 'dir'))
  fs.symlinkSync(outside, path.join(root, 'link'))
  fs.symlinkSync(path.join(outside, 'secret.tif'), path.join(root, 'inside.tif'))
  fs.symlinkSync(path.join(outside, 'secret.tif'), path.join(root, 'dir', 'temp_20081105T000000_0.tif'))
  fs.symlinkSync('/dev/zero', path.join(root, 'zero.tif'))
  const c = await canary()
  t.teardown(c.close)
  const app = await setup(t, { harvestRoots: [root] })
  const outsideBefore = treeManifest(outside)
  const rootBefore = treeManifest(root)
  const n = await count(app)
  const cases: Array<[string, number, RegExp]> = [
    ['file:///etc/passwd', 403, /^Harvesting is only allowed under the configured harvest roots/],
    ['/etc/passwd', 403, /^Harvesting is only allowed/],
    [`file://${root}/../../etc/passwd`, 403, /^Harvesting is only allowed/],
    [`${root}/../${path.basename(outside)}/secret.tif`, 403, /^Harvesting is only allowed/],
    [`${root}/link/secret.tif`, 403, /symbolic link/],
    [`file://${root}/inside.tif`, 403, /symbolic link/],
    [`${root}/zero.tif`, 403, /symbolic link/],
    ['file://otherhost/share/x.tif', 400, /must name a local path/],
    ['\\\\otherhost\\share\\x.tif', 400, /paths must be absolute|not supported/],
    [`${c.url}/x.tif`, 400, /http: locations are not supported/],
    ['http://169.254.169.254/latest/meta-data/', 400, /http: locations are not supported/],
    ['https://example.org/x.tif', 400, /https: locations are not supported/],
    [`gopher://127.0.0.1:${new URL(c.url).port}/_GET%20/`, 400, /gopher: locations are not supported/],
    [`jar:file:${root}/x.zip!/a.tif`, 400, /jar: locations are not supported/],
    ['file:///dev/zero', 403, /^Harvesting is only allowed/],
    ['file:///proc/self/environ', 403, /^Harvesting is only allowed/],
    ['/proc/self/environ', 403, /^Harvesting is only allowed/],
    ['relative/path.tif', 400, /paths must be absolute/],
    [`${root}/missing.tif`, 400, /no such file or directory/],
    [`${root}/a\u0000b.tif`, 400, /./],
    ['', 400, /./]
  ]
  for (const [body, status, message] of cases) {
    const before = await snapshot(app, GETS, ADMIN)
    const res = await app.inject({ method: 'POST', url: `${R}/temp/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: body })
    await assertRefused(t, app, res, { status, message, echo: body }, before, `harvest ${JSON.stringify(body)}`, GETS, ADMIN)
    t.notMatch(res.body, /\/etc\/passwd|environ|PATH=|HOME=/, `${JSON.stringify(body)}: no file content or path echoed`)
  }
  // A directory under the root holding a symlink that leaves it: the link is skipped, not followed.
  const dirHarvest = await app.inject({ method: 'POST', url: `${R}/temp/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: pathToFileURL(path.join(root, 'dir')).href })
  t.equal(dirHarvest.statusCode, 201, 'the harvest runs and indexes what is inside the root')
  t.equal(await count(app), n, 'no granule from outside the root')
  t.equal(c.hits(), 0, 'the canary was never reached')
  t.same(treeManifest(outside), outsideBefore, 'outside the root untouched')
  t.same(treeManifest(root), rootBefore, 'the harvest root untouched')
})

t.test('[hostile #57] harvesting the same file twice is idempotent: granules and files untouched', async (t) => {
  const root = fs.realpathSync(tempDir(t, 'mwroot'))
  const app = await setup(t, { harvestRoots: [root] })
  const file = path.join(root, 'temp_20081103T000000_0.tif')
  fs.writeFileSync(file, makeTiff({ width: 4, height: 4, bbox: [20, 40, 30, 50], value: () => 1 }))
  const harvest = () => app.inject({ method: 'POST', url: `${R}/temp/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: pathToFileURL(file).href })
  let r = await harvest()
  t.equal(r.statusCode, 201)
  const rowsAfterFirst = await appRows(app, 'SELECT * FROM mosaic_granules ORDER BY seq')
  const before = await snapshot(app, GETS, ADMIN)
  const rootBefore = treeManifest(root)
  r = await harvest()
  t.equal(r.statusCode, 201, 'the second harvest succeeds')
  t.same(await appRows(app, 'SELECT * FROM mosaic_granules ORDER BY seq'), rowsAfterFirst, 'same rows, same ids')
  t.same(await snapshot(app, GETS, ADMIN), before, 'data directory and catalog unchanged')
  t.same(treeManifest(root), rootBefore, 'the harvested file untouched')
  // Harvesting the directory that holds it is idempotent as well.
  r = await app.inject({ method: 'POST', url: `${R}/temp/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: root })
  t.equal(r.statusCode, 201)
  t.same(await appRows(app, 'SELECT * FROM mosaic_granules ORDER BY seq'), rowsAfterFirst, 'same rows after harvesting the folder')
})

t.test('[hostile #56] a harvest folder holding more granules than one request may index is a 400, not a 500', async (t) => {
  const dir = tempDir(t, 'mwmany')
  for (let i = 0; i < 11; i++) fs.writeFileSync(path.join(dir, `g${i}.tif`), '')
  const err = await findGranules(dir, { wildcard: '*.*', recursive: true }, 10).then(() => undefined, (e) => e)
  t.match(err, { code: 'MW_MOSAIC_TOO_MANY_GRANULES', message: 'More than 10 granules in one request; harvest the sub-folders one at a time' })
  t.equal(statusOf(err), 400)
  t.same((await findGranules(dir, { wildcard: '*.*', recursive: true }, 11)).length, 11)
})
