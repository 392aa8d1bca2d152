// GeoServer's built-in default styles (its catalog's DEFAULT_POINT, DEFAULT_LINE, DEFAULT_POLYGON,
// DEFAULT_RASTER and DEFAULT_GENERIC): listed among the global styles, readable as an entry and as
// SLD, never deleted ("Unable to delete a default style"), never renamed or moved to a workspace, in
// no workspace. They have no row: a PUT of an SLD (or package) to one stores its first row, under
// default_<name>.sld, which takes its place from then on (its own SLD, its own rendering) and stays
// undeletable (style-content.ts replaceBuiltIn).
// The SLD bodies describe what the renderer draws for them (render/vector/vector-style.ts
// BUILT_IN_VECTOR_STYLES; raster: the default raster rendering).
import type { StyleRow } from './store.js'

/** The built-in styles' names, sorted as a style list is. */
export const BUILT_IN = ['generic', 'line', 'point', 'polygon', 'raster']

const sld = (name: string, title: string, rules: string) => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc"
  xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.opengis.net/sld StyledLayerDescriptor.xsd">
  <NamedLayer>
    <Name>${name}</Name>
    <UserStyle>
      <Name>${name}</Name>
      <Title>${title}</Title>
      <FeatureTypeStyle>
${rules}
      </FeatureTypeStyle>
    </UserStyle>
  </NamedLayer>
</StyledLayerDescriptor>
`

const POINT = `<PointSymbolizer>
            <Graphic>
              <Mark>
                <WellKnownName>square</WellKnownName>
                <Fill>
                  <CssParameter name="fill">#FF0000</CssParameter>
                </Fill>
              </Mark>
              <Size>6</Size>
            </Graphic>
          </PointSymbolizer>`
const LINE = `<LineSymbolizer>
            <Stroke>
              <CssParameter name="stroke">#0000FF</CssParameter>
              <CssParameter name="stroke-width">1</CssParameter>
            </Stroke>
          </LineSymbolizer>`
const POLYGON = `<PolygonSymbolizer>
            <Fill>
              <CssParameter name="fill">#AAAAAA</CssParameter>
            </Fill>
            <Stroke>
              <CssParameter name="stroke">#000000</CssParameter>
              <CssParameter name="stroke-width">1</CssParameter>
            </Stroke>
          </PolygonSymbolizer>`
const rule = (title: string, body: string, filter = '') => `        <Rule>
          <Name>${title}</Name>
          <Title>${title}</Title>${filter}
          ${body}
        </Rule>`
// The generic style's rules choose by the geometry's dimension, as GeoServer's generic.sld does.
const dimension = (op: string, n: number) => `
          <ogc:Filter>
            <ogc:${op}>
              <ogc:Function name="dimension">
                <ogc:Function name="geometry"/>
              </ogc:Function>
              <ogc:Literal>${n}</ogc:Literal>
            </ogc:${op}>
          </ogc:Filter>`

const BODIES: Record<string, string> = {
  point: sld('point', 'Default point: a red square', rule('Red Square', POINT)),
  line: sld('line', 'Default line: a blue line', rule('Blue Line', LINE)),
  polygon: sld('polygon', 'Default polygon: grey with a black outline', rule('Grey Polygon', POLYGON)),
  raster: sld('raster', 'Default raster: the default rendering', rule('Opaque Raster', `<RasterSymbolizer>
            <Opacity>1.0</Opacity>
          </RasterSymbolizer>`)),
  generic: sld('generic', 'Generic: by geometry type', [
    rule('Polygon', POLYGON, dimension('PropertyIsEqualTo', 2)),
    rule('Line', LINE, dimension('PropertyIsEqualTo', 1)),
    rule('Point', POINT, dimension('PropertyIsEqualTo', 0))
  ].join('\n'))
}

export const isBuiltIn = (workspace: string | undefined, name: string) => workspace === undefined && BUILT_IN.includes(name)

/** The SLD of a built-in style; undefined for another name. */
export const builtInSld = (name: string): string | undefined => BODIES[name]

/** A built-in style's catalog entry as GeoServer shows it (its data directory's default_<name>.sld). */
export function builtInRow (name: string): StyleRow {
  return { id: 0, name, format: 'sld', languageVersion: '1.0.0', filename: `default_${name}.sld`, revision: 0, images: [], createdAt: '', modifiedAt: '' }
}
