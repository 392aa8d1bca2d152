// Service descriptions for the tile services: WMTS 1.0.0 capabilities (what GeoWebCache writes:
// tile matrix ids `<gridset>:<z>`, TileMatrixSetLimits from each layer's coverage, KVP and a
// RESTful ResourceURL) and the TMS 1.0.0 TileMapService and TileMap documents.
import type { LayerInfo } from '../../services/catalog/layers.js'
import { builtInGrids, GRID_SETS, gridOrigin, matrixName, tilesHigh, tilesWide, type GridSet, type GridSubset, type LayerGrids } from '../../services/tilecache/grid-sets.js'

/** The grid sets a layer offers and its subset of each (the tile cache's gridsOf); the built-in ones by default. */
export type GridsOf = (layer: LayerInfo) => LayerGrids
const BUILT_IN: GridsOf = (l) => builtInGrids(l.bbox)
/** Each grid set the layer offers with its subset. */
const subsets = (g: LayerGrids): GridSubset[] => g.gridSets.map((gs) => g.subsetOf(gs)).filter((s): s is GridSubset => s !== undefined)
import { FORMATS, formatsOf } from '../../services/tilecache/formats.js'
import { tileStyles } from '../../services/tilecache/parameters.js'
import { escapeXml as x } from '../infra/representation.js'
import type { ServiceDescription } from '../../services/wms/capabilities.js'

const num = (n: number) => Number.isInteger(n) ? n.toFixed(1) : String(n)

function topLeft (gs: GridSet, z: number): [number, number] {
  const span = gs.resolutions[z] * gs.tileHeight
  const [ox, oy] = gridOrigin(gs, z)
  return [ox, oy + tilesHigh(gs, z) * span]
}

/** `service`: what the WMTS settings say (title, abstract, keywords, fees, constraints; onlineResource as the ProviderSite). */
export function wmtsCapabilities (layers: LayerInfo[], serviceUrl: string, service: ServiceDescription, gridsOf: GridsOf = BUILT_IN): string {
  // Every TileMatrixSet a listed layer links to, the built-in ones always, each once.
  const matrixSets = new Map<string, GridSet>(Object.values(GRID_SETS).map((g) => [g.id, g]))
  for (const l of layers) for (const g of gridsOf(l).gridSets) matrixSets.set(g.id, g)
  const kvp = `${serviceUrl}/wmts?`
  const op = (name: string) => `    <ows:Operation name="${name}">
      <ows:DCP>
        <ows:HTTP>
          <ows:Get xlink:href="${x(kvp)}">
            <ows:Constraint name="GetEncoding">
              <ows:AllowedValues>
                <ows:Value>KVP</ows:Value>
              </ows:AllowedValues>
            </ows:Constraint>
          </ows:Get>
        </ows:HTTP>
      </ows:DCP>
    </ows:Operation>`
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:gml="http://www.opengis.net/gml" version="1.0.0">',
    '  <ows:ServiceIdentification>',
    `    <ows:Title>${x(service.title)}</ows:Title>`,
    ...(service.abstract !== undefined ? [`    <ows:Abstract>${x(service.abstract)}</ows:Abstract>`] : []),
    ...(service.keywords.length > 0 ? ['    <ows:Keywords>', ...service.keywords.map((k) => `      <ows:Keyword>${x(k)}</ows:Keyword>`), '    </ows:Keywords>'] : []),
    '    <ows:ServiceType>OGC WMTS</ows:ServiceType>',
    '    <ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion>',
    ...(service.fees !== undefined ? [`    <ows:Fees>${x(service.fees)}</ows:Fees>`] : []),
    ...(service.accessConstraints !== undefined ? [`    <ows:AccessConstraints>${x(service.accessConstraints)}</ows:AccessConstraints>`] : []),
    '  </ows:ServiceIdentification>',
    // OWS 1.1: a ServiceProvider needs a ProviderName and a ServiceContact; written when the settings name a site.
    ...(service.onlineResource !== undefined
      ? ['  <ows:ServiceProvider>', `    <ows:ProviderName>${x(service.title)}</ows:ProviderName>`, `    <ows:ProviderSite xlink:href="${x(service.onlineResource)}"/>`,
          '    <ows:ServiceContact/>', '  </ows:ServiceProvider>']
      : []),
    '  <ows:OperationsMetadata>',
    op('GetCapabilities'),
    op('GetTile'),
    '  </ows:OperationsMetadata>',
    '  <Contents>'
  ]
  for (const l of layers) {
    const b = l.bbox ?? [-180, -90, 180, 90]
    out.push('    <Layer>',
      `      <ows:Title>${x(l.qualifiedName)}</ows:Title>`,
      '      <ows:WGS84BoundingBox>',
      `        <ows:LowerCorner>${num(b[0])} ${num(b[1])}</ows:LowerCorner>`,
      `        <ows:UpperCorner>${num(b[2])} ${num(b[3])}</ows:UpperCorner>`,
      '      </ows:WGS84BoundingBox>',
      `      <ows:Identifier>${x(l.qualifiedName)}</ows:Identifier>`)
    const styles = tileStyles(l)
    if (styles.allowed.length === 0) out.push('      <Style isDefault="true">', '        <ows:Identifier></ows:Identifier>', '      </Style>')
    for (const s of styles.allowed) out.push(`      <Style${s === styles.default ? ' isDefault="true"' : ''}>`, `        <ows:Identifier>${x(s)}</ows:Identifier>`, '      </Style>')
    for (const f of formatsOf(l)) out.push(`      <Format>${f}</Format>`)
    for (const sub of subsets(gridsOf(l))) {
      const gs = sub.gridSet
      out.push('      <TileMatrixSetLink>', `        <TileMatrixSet>${gs.id}</TileMatrixSet>`, '        <TileMatrixSetLimits>')
      for (let z = 0; z < gs.resolutions.length; z++) {
        const c = sub.coverage(z)
        if (!c) continue
        const h = tilesHigh(gs, z)
        out.push('          <TileMatrixLimits>',
          `            <TileMatrix>${x(matrixName(gs, z))}</TileMatrix>`,
          `            <MinTileRow>${h - 1 - c[3]}</MinTileRow>`,
          `            <MaxTileRow>${h - 1 - c[1]}</MaxTileRow>`,
          `            <MinTileCol>${c[0]}</MinTileCol>`,
          `            <MaxTileCol>${c[2]}</MaxTileCol>`,
          '          </TileMatrixLimits>')
      }
      out.push('        </TileMatrixSetLimits>', '      </TileMatrixSetLink>')
    }
    for (const f of formatsOf(l)) {
      const template = `${serviceUrl}/wmts/rest/${encodeURIComponent(l.qualifiedName)}/{style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}?format=${f}`
      out.push(`      <ResourceURL format="${f}" resourceType="tile" template="${x(template)}"/>`)
    }
    out.push('    </Layer>')
  }
  for (const gs of matrixSets.values()) {
    const code = gs.srs.split(':')[1]
    out.push('    <TileMatrixSet>', `      <ows:Identifier>${gs.id}</ows:Identifier>`, `      <ows:SupportedCRS>urn:ogc:def:crs:EPSG::${code}</ows:SupportedCRS>`)
    for (let z = 0; z < gs.resolutions.length; z++) {
      const [left, top] = topLeft(gs, z)
      // EPSG:4326 in a URN is latitude first (GWC writes "90.0 -180.0").
      const corner = gs.yCoordinateFirst ? `${num(top)} ${num(left)}` : `${num(left)} ${num(top)}`
      out.push('      <TileMatrix>',
        `        <ows:Identifier>${x(matrixName(gs, z))}</ows:Identifier>`,
        `        <ScaleDenominator>${gs.scaleDenominators[z]}</ScaleDenominator>`,
        `        <TopLeftCorner>${corner}</TopLeftCorner>`,
        `        <TileWidth>${gs.tileWidth}</TileWidth>`,
        `        <TileHeight>${gs.tileHeight}</TileHeight>`,
        `        <MatrixWidth>${tilesWide(gs, z)}</MatrixWidth>`,
        `        <MatrixHeight>${tilesHigh(gs, z)}</MatrixHeight>`,
        '      </TileMatrix>')
    }
    out.push('    </TileMatrixSet>')
  }
  out.push('  </Contents>', `  <ServiceMetadataURL xlink:href="${x(serviceUrl)}/wmts/1.0.0/WMTSCapabilities.xml"/>`, '</Capabilities>')
  return out.join('\n')
}

// TMS profiles: the two global ones, 'local' for a custom grid set (TMS 1.0.0).
const PROFILES: Record<string, string> = { 'EPSG:4326': 'global-geodetic', 'EPSG:900913': 'global-mercator' }
const profileOf = (gs: GridSet) => gs.builtIn ? PROFILES[gs.id] : 'local'
export const tileMapName = (layer: string, gs: string, ext: string) => `${layer}@${gs}@${ext}`

export function tmsService (layers: LayerInfo[], tmsUrl: string, gridsOf: GridsOf = BUILT_IN): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<TileMapService version="1.0.0" services="${x(tmsUrl)}">`,
    '  <Title>mapwarden Tile Map Service</Title>', '  <Abstract></Abstract>', '  <TileMaps>']
  for (const l of layers) {
    for (const gs of gridsOf(l).gridSets) {
      for (const f of formatsOf(l)) {
        const name = tileMapName(l.qualifiedName, gs.id, FORMATS[f].ext)
        out.push(`    <TileMap title="${x(l.qualifiedName)}" srs="${x(gs.builtIn ? gs.id : gs.srs)}" profile="${profileOf(gs)}" href="${x(`${tmsUrl}/1.0.0/${encodeURIComponent(name)}`)}"/>`)
      }
    }
  }
  out.push('  </TileMaps>', '</TileMapService>')
  return out.join('\n')
}

/** `sub`: the layer's subset of the grid set (its extent and levels). */
export function tmsTileMap (l: LayerInfo, sub: GridSubset, ext: string, mime: string, tmsUrl: string): string {
  const gs = sub.gridSet
  const name = encodeURIComponent(tileMapName(l.qualifiedName, gs.id, ext))
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<TileMap version="1.0.0" tilemapservice="${x(tmsUrl)}/1.0.0/">`,
    `  <Title>${x(l.qualifiedName)}</Title>`, '  <Abstract></Abstract>', `  <SRS>${x(gs.builtIn ? gs.id : gs.srs)}</SRS>`,
    `  <BoundingBox minx="${num(sub.extent[0])}" miny="${num(sub.extent[1])}" maxx="${num(sub.extent[2])}" maxy="${num(sub.extent[3])}"/>`,
    `  <Origin x="${num(gridOrigin(gs, 0)[0])}" y="${num(gridOrigin(gs, 0)[1])}"/>`,
    `  <TileFormat width="${gs.tileWidth}" height="${gs.tileHeight}" mime-type="${mime}" extension="${ext}"/>`,
    `  <TileSets profile="${profileOf(gs)}">`]
  for (let z = sub.zoomStart; z <= sub.zoomStop; z++) {
    out.push(`    <TileSet href="${x(`${tmsUrl}/1.0.0/${name}/${z}`)}" units-per-pixel="${gs.resolutions[z]}" order="${z}"/>`)
  }
  out.push('  </TileSets>', '</TileMap>')
  return out.join('\n')
}
