// Visual agreement with an independent renderer (issue 34's proof): the same PostGIS tables (Natural
// Earth 1:50m countries from world-atlas, a town on each, roads between neighbours' towns) drawn by
// mapwarden's WMS GetMap with SLD and by MapServer 8's mapserv CGI with the equivalent mapfile
// (test/fixtures/vector/countries.ts), 1024x768 PNG, in EPSG:4326 and EPSG:3857.
//
// The measure: every pixel is classified in each image as empty (alpha <= 16), fill (the countries'
// colour) or stroke (the outline's, the roads' or the towns' colour), a pixel being of a colour when
// it is opaque (alpha >= 240) and within 48 (Euclidean RGB) of it. A pixel that is neither in one of
// the images is an antialiased edge or a blend of two symbols and is left out. Held: of the pixels
// compared, at least 98% have the same class in both images; of MapServer's fill and empty pixels at
// least 98%, and of its stroke pixels at least 90% (strokes are 2-3 pixels wide: half a pixel of
// placement moves a third of them), are ours too; and at most 15% of all pixels are left out (the
// European map, dense with borders, leaves out 10.5%). Measured when written (2026-11-27, MapServer
// 8.0.0 of Debian, librsvg of sharp 0.34): Europe 99.72% (fill 99.75%, empty 99.99%, stroke 98.28%),
// Southeast Asia 99.84% (fill 99.74%, empty 99.99%, stroke 97.60%).
// Labels are not compared pixel by pixel (the fonts' rasterisers differ); the style has none.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { COLOURS, countryMapfile, countrySlds, countryTables } from '../../fixtures/vector/countries.js'
import { haveMapserv, mapserv } from '../../fixtures/mapserver.js'
import { pixels, wmsUrl, type Pixels } from './helpers.js'

const REST = `${BASE}/rest`
const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
type Class = 'empty' | 'fill' | 'stroke' | 'mixed'
const CLASSES: Array<[Class, readonly number[]]> = [['fill', COLOURS.fill], ['stroke', COLOURS.outline], ['stroke', COLOURS.road], ['stroke', COLOURS.town]]

function classify (p: Pixels, i: number): Class {
  const o = i * p.channels
  const a = p.data[o + 3]
  if (a <= 16) return 'empty'
  if (a < 240) return 'mixed'
  for (const [c, rgb] of CLASSES) if (Math.hypot(p.data[o] - rgb[0], p.data[o + 1] - rgb[1], p.data[o + 2] - rgb[2]) <= 48) return c
  return 'mixed'
}

interface Agreement { total: number, compared: number, same: number, recall: Record<'empty' | 'fill' | 'stroke', { theirs: number, ours: number }> }

function agreement (ours: Pixels, theirs: Pixels): Agreement {
  const out: Agreement = { total: ours.width * ours.height, compared: 0, same: 0, recall: { empty: { theirs: 0, ours: 0 }, fill: { theirs: 0, ours: 0 }, stroke: { theirs: 0, ours: 0 } } }
  for (let i = 0; i < out.total; i++) {
    const a = classify(ours, i); const b = classify(theirs, i)
    if (a === 'mixed' || b === 'mixed') continue
    out.compared++
    out.recall[b].theirs++
    if (a === b) { out.same++; out.recall[b].ours++ }
  }
  return out
}

async function setup (t: Test): Promise<{ app: FastifyInstance, map: string }> {
  const app = await build(t)
  const url = await postgisStore(t, app, 'SELECT 1', { store: 'db', fetchSize: 1000 })
  await countryTables(url, '50m')
  const slds = countrySlds()
  for (const name of ['countries', 'roads', 'towns'] as const) {
    let r = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/datastores/db/featuretypes`, headers: JSON_TYPE, payload: { featureType: { name } } })
    if (r.statusCode !== 201) throw new Error(`feature type ${name}: ${r.statusCode} ${r.body}`)
    r = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=${name}`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: slds[name] })
    if (r.statusCode !== 201) throw new Error(`style ${name}: ${r.statusCode} ${r.body}`)
    r = await app.inject({ method: 'PUT', url: `${REST}/layers/vx:${name}`, headers: JSON_TYPE, payload: { layer: { defaultStyle: { name: `vx:${name}` } } } })
    if (r.statusCode !== 200) throw new Error(`layer ${name}: ${r.statusCode} ${r.body}`)
  }
  const dir = tempDir(t, 'mapserver')
  const map = path.join(dir, 'countries.map')
  fs.writeFileSync(map, countryMapfile(url, dir))
  return { app, map }
}

const MAPS: Array<[string, string, string]> = [
  ['Europe in EPSG:4326', 'EPSG:4326', '-10,35,30,65'],
  ['Southeast Asia in EPSG:3857', 'EPSG:3857', '9000000,-1500000,17000000,4500000']
]

t.test('mapwarden and MapServer 8 agree on the filled, stroked and empty pixels of the same tables and style', async (t) => {
  if (!haveMapserv()) return t.fail('the mapserv CGI is missing: run scripts/install-wms-tools.sh')
  const { app, map } = await setup(t)
  for (const [what, srs, bbox] of MAPS) {
    const params = { service: 'WMS', version: '1.1.1', request: 'GetMap', srs, bbox, width: 1024, height: 768, format: 'image/png', transparent: 'true', styles: '' }
    const res = await app.inject({ method: 'GET', url: wmsUrl({ ...params, layers: 'vx:countries,vx:roads,vx:towns' }), headers: ADMIN })
    t.equal(res.headers['content-type'], 'image/png', `${what}: our map`)
    const theirs = await mapserv(map, { ...params, layers: 'countries,roads,towns' })
    t.equal(theirs.type, 'image/png', `${what}: MapServer's map${theirs.type === 'image/png' ? '' : `: ${theirs.body.toString('latin1').slice(0, 300)}`}`)
    const a = agreement(await pixels(res.rawPayload), await pixels(theirs.body))
    const share = (n: number, of: number) => of === 0 ? 0 : n / of
    const pct = (x: number) => `${(100 * x).toFixed(2)}%`
    t.comment(`${what}: ${pct(share(a.same, a.compared))} of ${a.compared} pixels agree (${pct(1 - share(a.compared, a.total))} left out as edges); ` +
      Object.entries(a.recall).map(([c, r]) => `${c} ${r.ours}/${r.theirs} = ${pct(share(r.ours, r.theirs))}`).join(', '))
    t.ok(a.recall.fill.theirs > a.total / 10 && a.recall.stroke.theirs > 2000 && a.recall.empty.theirs > a.total / 20, `${what}: the map holds land, sea and strokes to compare`)
    t.ok(share(a.same, a.compared) >= 0.98, `${what}: at least 98% of the compared pixels agree`)
    t.ok(share(a.recall.fill.ours, a.recall.fill.theirs) >= 0.98, `${what}: at least 98% of MapServer's filled pixels are filled here`)
    t.ok(share(a.recall.empty.ours, a.recall.empty.theirs) >= 0.98, `${what}: at least 98% of MapServer's empty pixels are empty here`)
    t.ok(share(a.recall.stroke.ours, a.recall.stroke.theirs) >= 0.9, `${what}: at least 90% of MapServer's stroked pixels are stroked here`)
    t.ok(share(a.compared, a.total) >= 0.85, `${what}: at most 15% of the pixels are left out as edges`)
  }
})
