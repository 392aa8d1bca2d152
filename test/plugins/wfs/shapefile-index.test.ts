// WFS over an uploaded shapefile store through HTTP: the spatial index built on upload answers a
// GetFeature BBOX with exactly the points inside the box (worked out here from the data), and
// numberMatched / resultType=hits agree; the same answers after the index file is torn and after the
// .shp is replaced by another upload.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace, zipItems } from '../appschema/helpers.js'
import { writeShapefile, WGS84_WKT } from '../../fixtures/vector/files.js'
import { indexFileOf } from '../../../services/vector/shapefile-index.js'
import { wfsGet } from './helpers.js'

const GF = { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'vx:pts', outputFormat: 'application/json' }

function points (n: number, shift: number): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (let i = 0; i < n; i++) out.push([((i * 7919) % 3600) / 10 - 180 + shift, ((i * 104729) % 1700) / 10 - 85])
  return out
}

async function upload (app: Awaited<ReturnType<typeof build>>, dir: string, pts: Array<[number, number]>): Promise<void> {
  writeShapefile(dir, 'pts', {
    type: 'point',
    fields: [{ name: 'num', type: 'N', length: 9 }],
    features: pts.map((p, i) => ({ geometry: { type: 'Point', coordinates: p }, values: [i] })),
    prj: WGS84_WKT
  })
  const zip = await zipItems(['shp', 'shx', 'dbf', 'prj'].map((e) => ({ name: `pts.${e}`, data: fs.readFileSync(path.join(dir, `pts.${e}`)) })))
  const res = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/vx/datastores/pts/file.shp?configure=all`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${res.body}`)
}

t.test('GetFeature BBOX over an uploaded shapefile: exactly the points inside, counted alike, whatever the index file', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir })
  await createWorkspace(app, 'vx')
  const files = tempDir(t, 'files')
  const box = [-20.05, -10.05, 20.05, 30.05]
  const inside = (pts: Array<[number, number]>) => pts.map((p, i) => ({ p, i })).filter(({ p }) => p[0] >= box[0] && p[0] <= box[2] && p[1] >= box[1] && p[1] <= box[3]).map(({ i }) => i)
  const nums = async () => {
    const res = await wfsGet(app, { ...GF, bbox: `${box.join(',')},EPSG:4326` })
    t.equal(res.statusCode, 200, res.body)
    const body = JSON.parse(res.body)
    return { nums: body.features.map((f: any) => f.properties.num), matched: body.numberMatched }
  }
  const hits = async (extra: Record<string, string> = {}) => {
    const res = await wfsGet(app, { ...GF, resultType: 'hits', outputFormat: 'text/xml; subtype=gml/3.2', ...extra })
    return Number(/numberMatched="(\d+)"/.exec(res.body)?.[1])
  }

  const first = points(3000, 0)
  await upload(app, files, first)
  const shp = path.join(dataDir, 'data', 'vx', 'pts', 'pts.shp')
  const index = indexFileOf(shp, path.join(dataDir, 'shapefile-index'))
  t.ok(fs.existsSync(index), 'the index was built by the upload')
  const want = inside(first)
  t.ok(want.length > 50 && want.length < 1500, `some points inside the box (${want.length})`)
  t.same(await nums(), { nums: want, matched: want.length }, 'the points inside the box, in record order, numberMatched alike')
  t.equal(await hits(), 3000, 'hits without a box: every record')
  t.equal(await hits({ bbox: `${box.join(',')},EPSG:4326` }), want.length, 'hits with the box')

  fs.writeFileSync(index, fs.readFileSync(index).subarray(0, 4096))
  t.same(await nums(), { nums: want, matched: want.length }, 'a torn index: the same answer')

  const second = points(2000, 7.3)
  await upload(app, files, second)
  t.same(await nums(), { nums: inside(second), matched: inside(second).length }, 'another upload over the store: the new points')
  t.equal(await hits(), 2000)
})
