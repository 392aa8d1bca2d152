// A vector style as the render workers apply it: plain data compiled from an SLD (services/styles/
// vector-sld.ts) that crosses the worker boundary. FeatureTypeStyles are drawn one after the other
// over all features; in each, every rule whose filter and scale range match draws the feature
// (an ElseFilter rule only when no other rule of its FeatureTypeStyle did).
import type { Filter } from '../../filters/tree.js'
import type { Expr } from './expression.js'

export interface Paint { color: string, opacity: number }
export interface Stroke extends Paint {
  width: number
  dasharray?: number[]
  linecap?: 'butt' | 'round' | 'square'
  linejoin?: 'miter' | 'round' | 'bevel'
  /** stroke-dashoffset: pixels into the dash pattern where the line starts. */
  dashoffset?: number
}

/** GeoServer's shape:// marks are strokes only (hatching); the others are filled and outlined. */
export const SHAPE_MARKS = ['shape://horline', 'shape://vertline', 'shape://slash', 'shape://backslash', 'shape://dot', 'shape://plus', 'shape://times'] as const
export type MarkName = 'circle' | 'square' | 'triangle' | 'star' | 'cross' | 'x' | typeof SHAPE_MARKS[number]

/**
 * An ExternalGraphic. `href` is the SLD's OnlineResource, relative to the style's folder (or a
 * data: URI); the style's reader (services/styles/style-graphics.ts) embeds the image as the data:
 * URI `data` with its own size in pixels. Without `data` (a file missing or not an image) the
 * Graphic's mark is drawn, as GeoServer falls back to it. `ownSize`: the Graphic has no Size, the
 * image is drawn at its own size.
 */
export interface ExternalImage { href: string, data?: string, width?: number, height?: number, ownSize?: boolean }

/**
 * Parameters given by an expression, evaluated per feature (symbolizer-values.ts); the literal
 * fields beside them hold the defaults used where an expression gives nothing usable.
 */
export type DynamicField = 'fill' | 'fill-opacity' | 'stroke' | 'stroke-width' | 'stroke-opacity' | 'size' | 'rotation' | 'opacity' | 'font-size' | 'halo-radius'
export type Dynamic = Partial<Record<DynamicField, Expr>>

/**
 * A Graphic: its image when it has one that could be read, else its mark; `size` is its height in
 * pixels; `displacement` its Displacement in pixels on the screen (x right, y down). The Graphics
 * of GraphicFill and GraphicStroke are literal; a point symbolizer's may have `dynamic` values.
 */
export interface Graphic { mark: MarkName, image?: ExternalImage, size: number, rotation: number, opacity: number, fill?: Paint, stroke?: Stroke, displacement?: [number, number] }

export interface PointSymbolizer extends Graphic { kind: 'point', dynamic?: Dynamic }
export interface LineSymbolizer {
  kind: 'line'
  stroke: Stroke
  /** SE 1.1 PerpendicularOffset in pixels: left of the line's direction when positive. */
  offset?: number
  /** GraphicStroke: the graphic repeated along the line, turned with it, one after the other. */
  graphicStroke?: Graphic
  /** The Stroke's GraphicFill: the stroke (its width, dashes, caps and joins) painted with the
   *  graphic repeated edge to edge on the map instead of its colour, as GeoTools' texture paint. */
  graphicFill?: Graphic
  dynamic?: Dynamic
}
/**
 * `graphicFill`: the polygon filled with the graphic repeated edge to edge (GraphicFill), over `fill`
 * when both are given; `graphicMargin`: GeoServer's graphic-margin, pixels of space around each
 * graphic (top, right, bottom, left).
 */
export interface PolygonSymbolizer { kind: 'polygon', fill?: Paint, graphicFill?: Graphic, graphicMargin?: [number, number, number, number], stroke?: Stroke, dynamic?: Dynamic }

/** LinePlacement: along the line (followLine) or straight, rotated to the line at its middle. */
export interface LinePlacement {
  /** PerpendicularOffset in pixels (positive: left of the line's direction, as GeoServer). */
  offset: number
  followLine: boolean
  /** followLine's largest turn in degrees between two characters' segments (GeoServer's 22.5). */
  maxAngleDelta: number
}

export interface TextSymbolizer {
  kind: 'text'
  label: Expr
  /** Priority: labels with higher values are placed first (GeoServer's default 1000). */
  priority?: Expr
  /** Absent: PointPlacement. */
  line?: LinePlacement
  /** GeoServer's vendor options. */
  group: boolean
  labelAllGroup: boolean
  maxDisplacement: number
  spaceAround: number
  partials: boolean
  /** false: drawn whatever it overlaps, and it blocks no other label. */
  conflictResolution: boolean
  /** Lines of text wrapped at this width in pixels (0: one line); not for followLine. */
  autoWrap: number
  /** LinePlacement: a label every `repeat` pixels along the line (0: one, in the middle). */
  repeat: number
  /** A polygon's label is drawn only where at least this share of its box lies in the polygon (absent: anywhere). */
  goodnessOfFit?: number
  /** underlineText, strikethroughText. */
  decoration?: string
  dynamic?: Dynamic
  font: { family: string, size: number, style: 'normal' | 'italic' | 'oblique', weight: 'normal' | 'bold' }
  fill: Paint
  halo?: { radius: number, fill: Paint }
  /** SLD AnchorPoint (0..1, x from the left, y from the bottom) and Displacement in pixels (y up). */
  anchor: [number, number]
  displacement: [number, number]
  rotation: number
}
export type Symbolizer = PointSymbolizer | LineSymbolizer | PolygonSymbolizer | TextSymbolizer

export interface VectorRule {
  name?: string
  title?: string
  filter?: Filter
  /** ElseFilter: drawn for the features no other rule of the FeatureTypeStyle drew. */
  else?: boolean
  /** The rule applies where minScale <= scale denominator < maxScale. */
  minScale?: number
  maxScale?: number
  /** Only geometries of this kind (the built-in generic style's rules, as its dimension() filters). */
  geometry?: 'point' | 'line' | 'polygon'
  symbolizers: Symbolizer[]
}

export interface VectorStyle { featureTypeStyles: Array<{ rules: VectorRule[] }> }

/** Whether a rule applies at a scale denominator (SLD: min inclusive, max exclusive). */
export function inScale (rule: VectorRule, scale: number): boolean {
  return (rule.minScale === undefined || scale >= rule.minScale) && (rule.maxScale === undefined || scale < rule.maxScale)
}

const one = (title: string, s: Symbolizer): VectorStyle => ({ featureTypeStyles: [{ rules: [{ name: title, title, symbolizers: [s] }] }] })

/**
 * GeoServer's default styles (its data directory's point.sld, line.sld, polygon.sld), used when no
 * style of that name was created: a red square of 6 pixels, a blue line of 1 pixel, a grey polygon
 * with a black outline.
 */
export const BUILT_IN_VECTOR_STYLES: Record<string, VectorStyle> = {
  point: one('Red Square', { kind: 'point', mark: 'square', size: 6, rotation: 0, opacity: 1, fill: { color: '#FF0000', opacity: 1 } }),
  line: one('Blue Line', { kind: 'line', stroke: { color: '#0000FF', opacity: 1, width: 1 } }),
  polygon: one('Grey Polygon', { kind: 'polygon', fill: { color: '#AAAAAA', opacity: 1 }, stroke: { color: '#000000', opacity: 1, width: 1 } })
}
BUILT_IN_VECTOR_STYLES.generic = {
  featureTypeStyles: [{
    rules: [
      { title: 'Polygon', geometry: 'polygon', symbolizers: BUILT_IN_VECTOR_STYLES.polygon.featureTypeStyles[0].rules[0].symbolizers },
      { title: 'Line', geometry: 'line', symbolizers: BUILT_IN_VECTOR_STYLES.line.featureTypeStyles[0].rules[0].symbolizers },
      { title: 'Point', geometry: 'point', symbolizers: BUILT_IN_VECTOR_STYLES.point.featureTypeStyles[0].rules[0].symbolizers }
    ]
  }]
}
