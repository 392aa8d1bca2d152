// npm run demo: generates a small deterministic sample mosaic (4 GeoTIFF granules over Europe,
// two times x two elevations in their file names) and loads it into a running mapwarden through
// the REST API, so there is a layer (demo:watertemp) to look at and seed in one step.
//   MAPWARDEN_PORT, MAPWARDEN_HOST, MAPWARDEN_BASE_PATH   where the server listens, read as the server
//                       reads them (plugins/infra/config.ts): the demo finds the server npm start ran
//   MAPWARDEN_URL       base URL of the server, when it is elsewhere (wins over the three above)
//   MAPWARDEN_USER      admin user (default admin)
//   MAPWARDEN_PASSWORD  its password (or MAPWARDEN_ADMIN_PASSWORD)
//   --zip <file>        only write the mosaic ZIP, do not upload
//   --files <dir>       only write every file the README's "Using the API" walk uploads, do not
//                       upload: mosaic.zip, more-granules.zip (a third day, to harvest),
//                       watertemp.sld (a ColorMap style), marker.zip (a style package: an SLD and
//                       its image) and stations.zip (an app-schema mapping with its schema and a
//                       property-file source, from test/fixtures/appschema/property)
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeArrayBuffer } from 'geotiff'
import yazl from 'yazl'
import sharp from 'sharp'
import { resolveConfig } from '../plugins/infra/config.js'

const TIMES = ['20240601T000000', '20240602T000000']
const ELEVATIONS = [0, 100]
const W = 320
const H = 200
const BBOX = [-10, 35, 30, 60] // lon/lat, EPSG:4326

function granule (t: number, e: number): Buffer {
  const values = new Uint8Array(W * H)
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      // A warm south, a cold north, waves that move with time and fade with depth; 0 is nodata
      // (a round "island").
      const lat = BBOX[3] - (y + 0.5) * (BBOX[3] - BBOX[1]) / H
      const lon = BBOX[0] + (x + 0.5) * (BBOX[2] - BBOX[0]) / W
      const island = (lon - 12) ** 2 + (lat - 48) ** 2 < 9
      const v = 40 + (60 - lat) * 6 + 25 * Math.sin((lon + t * 4) / 3) * Math.cos(lat / 2) - e / 4
      values[y * W + x] = island ? 0 : Math.max(1, Math.min(255, Math.round(v)))
    }
  }
  return Buffer.from(writeArrayBuffer(values, {
    width: W,
    height: H,
    ModelPixelScale: [(BBOX[2] - BBOX[0]) / W, (BBOX[3] - BBOX[1]) / H, 0],
    ModelTiepoint: [0, 0, 0, BBOX[0], BBOX[3], 0],
    GTModelTypeGeoKey: 2,
    GTRasterTypeGeoKey: 1,
    GeographicTypeGeoKey: 4326,
    GDAL_NODATA: '0'
  } as any))
}

async function zipOf (zip: yazl.ZipFile): Promise<Buffer> {
  zip.end()
  const chunks: Buffer[] = []
  for await (const c of zip.outputStream) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

export async function demoZip (): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from([
    'Schema=*the_geom:Polygon,location:String,ingestion:java.util.Date,elevation:Integer',
    'PropertyCollectors=TimestampFileNameExtractorSPI[timeregex](ingestion),IntegerFileNameExtractorSPI[elevationregex](elevation)',
    'TimeAttribute=ingestion',
    'ElevationAttribute=elevation',
    'Name=watertemp',
    ''
  ].join('\n')), 'indexer.properties', { mtime: new Date(0) })
  zip.addBuffer(Buffer.from('regex=[0-9]{8}T[0-9]{6}\n'), 'timeregex.properties', { mtime: new Date(0) })
  zip.addBuffer(Buffer.from('regex=(?<=_)[0-9]+(?=\\.tif)\n'), 'elevationregex.properties', { mtime: new Date(0) })
  TIMES.forEach((time, t) => ELEVATIONS.forEach((e) => zip.addBuffer(granule(t, e), `watertemp_${time}_${e}.tif`, { mtime: new Date(0) })))
  return zipOf(zip)
}

/** Granules of the day after the demo's two (same names, same regexes): a ZIP to harvest. */
export async function moreGranulesZip (): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const e of ELEVATIONS) zip.addBuffer(granule(TIMES.length, e), `watertemp_20240603T000000_${e}.tif`, { mtime: new Date(0) })
  return zipOf(zip)
}

/** A style package: an SLD whose PointSymbolizer draws marker.png, and that image (a red dot). */
export async function markerZip (): Promise<Buffer> {
  const sld = `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:xlink="http://www.w3.org/1999/xlink">
  <NamedLayer>
    <Name>marker</Name>
    <UserStyle>
      <Name>marker</Name>
      <FeatureTypeStyle>
        <Rule>
          <PointSymbolizer>
            <Graphic>
              <ExternalGraphic>
                <OnlineResource xlink:type="simple" xlink:href="marker.png"/>
                <Format>image/png</Format>
              </ExternalGraphic>
              <Size>16</Size>
            </Graphic>
          </PointSymbolizer>
        </Rule>
      </FeatureTypeStyle>
    </UserStyle>
  </NamedLayer>
</StyledLayerDescriptor>
`
  const dot = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><circle cx="8" cy="8" r="6" fill="#d1242f"/></svg>')
  const png = await sharp(dot).png().toBuffer()
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from(sld), 'marker.sld', { mtime: new Date(0) })
  zip.addBuffer(png, 'marker.png', { mtime: new Date(0) })
  return zipOf(zip)
}

/** The repository's app-schema mapping of weather stations (test/fixtures/appschema/property) as a ZIP. */
export async function stationsZip (): Promise<Buffer> {
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'appschema', 'property')
  const zip = new yazl.ZipFile()
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((x) => x.isFile()).sort((a, b) => path.join(a.parentPath, a.name).localeCompare(path.join(b.parentPath, b.name)))) {
    const full = path.join(e.parentPath, e.name)
    zip.addBuffer(fs.readFileSync(full), path.relative(dir, full).split(path.sep).join('/'), { mtime: new Date(0) })
  }
  return zipOf(zip)
}

/** Writes every file the README's walk uploads into `dir`; returns their names. */
export async function writeWalkFiles (dir: string): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true })
  const files: Record<string, Buffer | string> = {
    'mosaic.zip': await demoZip(),
    'more-granules.zip': await moreGranulesZip(),
    'watertemp.sld': demoSld(),
    'marker.zip': await markerZip(),
    'stations.zip': await stationsZip()
  }
  for (const [name, data] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), data)
  return Object.keys(files)
}

/** A style for the demo's values (1-255, 0 is nodata): a ColorMap ramp from cold blue to warm red. */
export function demoSld (): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld">
  <NamedLayer>
    <Name>watertemp</Name>
    <UserStyle>
      <Name>watertemp</Name>
      <Title>Water temperature</Title>
      <FeatureTypeStyle>
        <Rule>
          <RasterSymbolizer>
            <ColorMap type="ramp">
              <ColorMapEntry color="#000000" quantity="0" opacity="0" label="nodata"/>
              <ColorMapEntry color="#2C7BB6" quantity="1" label="cold"/>
              <ColorMapEntry color="#ABD9E9" quantity="80" label="cool"/>
              <ColorMapEntry color="#FDAE61" quantity="140" label="mild"/>
              <ColorMapEntry color="#D7191C" quantity="220" label="warm"/>
            </ColorMap>
          </RasterSymbolizer>
        </Rule>
      </FeatureTypeStyle>
    </UserStyle>
  </NamedLayer>
</StyledLayerDescriptor>
`
}

/** The URL the server started with the same MAPWARDEN_* settings listens on. */
function serverUrl (): string {
  const { host, port, basePath } = resolveConfig({ env: { MAPWARDEN_HOST: process.env.MAPWARDEN_HOST, MAPWARDEN_PORT: process.env.MAPWARDEN_PORT, MAPWARDEN_BASE_PATH: process.env.MAPWARDEN_BASE_PATH } })
  const reach = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host
  return `http://${reach}:${port}${basePath}`
}

async function main () {
  const filesArg = process.argv.indexOf('--files')
  if (filesArg > 0) {
    const dir = process.argv[filesArg + 1] ?? '.'
    const names = await writeWalkFiles(dir)
    console.log(`wrote ${names.join(', ')} into ${dir}`)
    return
  }
  const zipArg = process.argv.indexOf('--zip')
  const zip = await demoZip()
  if (zipArg > 0) {
    fs.writeFileSync(process.argv[zipArg + 1] ?? 'demo-mosaic.zip', zip)
    console.log(`wrote ${process.argv[zipArg + 1] ?? 'demo-mosaic.zip'} (${zip.length} bytes)`)
    return
  }
  const base = (process.env.MAPWARDEN_URL ?? serverUrl()).replace(/\/+$/, '')
  const user = process.env.MAPWARDEN_USER ?? 'admin'
  const password = process.env.MAPWARDEN_PASSWORD ?? process.env.MAPWARDEN_ADMIN_PASSWORD
  if (!password) {
    console.error('demo: set MAPWARDEN_PASSWORD to the admin password of the server (or use --zip <file>)')
    process.exit(2)
  }
  const auth = 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64')
  const call = async (method: string, path: string, body?: string | Buffer, type?: string) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: auth, ...(type ? { 'content-type': type } : {}) }, body: body === undefined ? undefined : new Blob([body as unknown as ArrayBuffer]) })
    return { status: res.status, text: await res.text() }
  }
  let r
  try {
    r = await call('POST', '/rest/workspaces', '<workspace><name>demo</name></workspace>', 'text/xml')
  } catch (err) {
    console.error(`demo: cannot reach ${base} (${(err as Error).message}); start the server first (npm start)`)
    process.exit(1)
  }
  if (r.status !== 201 && r.status !== 409) throw new Error(`creating workspace demo: ${r.status} ${r.text}`)
  r = await call('PUT', '/rest/workspaces/demo/coveragestores/watertemp/file.imagemosaic', zip, 'application/zip')
  if (r.status !== 200) throw new Error(`uploading the mosaic: ${r.status} ${r.text}`)
  r = await call('GET', '/rest/workspaces/demo/coveragestores/watertemp/coverages/watertemp/index/granules.json')
  const granules = JSON.parse(r.text).features.length
  console.log(`demo: layer demo:watertemp is ready (${granules} granules: times ${TIMES.join(', ')}, elevations ${ELEVATIONS.join(', ')})`)
  console.log(`  granules: curl -u ${user}:*** '${base}/rest/workspaces/demo/coveragestores/watertemp/coverages/watertemp/index/granules.json'`)
  console.log(`  seed:     curl -u ${user}:*** -H 'Content-Type: text/xml' -d '<seedRequest><name>demo:watertemp</name><gridSetId>EPSG:900913</gridSetId><zoomStart>0</zoomStart><zoomStop>5</zoomStop><format>image/png</format><type>seed</type><threadCount>2</threadCount></seedRequest>' '${base}/tilecache/rest/seed/demo:watertemp.xml'`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((err) => { console.error(`demo: ${err.message}`); process.exit(1) })
}
