// The contract between the catalog (which layer, which granules, which style) and the render
// workers. Everything here is plain data that crosses a worker-thread boundary.

/** A raster style compiled from an SLD RasterSymbolizer (services/styles compiles it). */
export interface RasterStyle {
  /** 0..1, multiplies the alpha of every pixel. */
  opacity?: number
  /** 1-based band indexes, as SLD's SourceChannelName. Gray wins when both are given. */
  channels?: { gray?: number, red?: number, green?: number, blue?: number }
  /** Channels selected by band name (a SourceChannelName that is not a number, as GeoTools reads
   *  it): resolved into `channels` against the coverage's band names before a job reaches a worker. */
  channelNames?: { gray?: string, red?: string, green?: string, blue?: string }
  colorMap?: {
    type: 'ramp' | 'intervals' | 'values'
    entries: Array<{ quantity: number, color: [number, number, number], opacity: number, label?: string }>
  }
  contrast?: { method?: 'normalize' | 'histogram' | 'none', gamma?: number }
}

/** What a render call asks for; the mosaic service turns it into a RenderJob. */
export interface RenderRequest {
  layer: string                 // <workspace>:<layer>
  /** EPSG:4326, EPSG:900913/3857, WGS84 UTM zones, or any code `proj4Defs` defines (the WMS). */
  crs: string
  bbox: [number, number, number, number]  // minx, miny, maxx, maxy in crs units (lon/lat order for 4326)
  /** proj4 definitions of CRS codes the built-in set lacks. */
  proj4Defs?: Record<string, string>
  width: number
  height: number
  time?: string
  elevation?: string
  cqlFilter?: string
  /** An SQL view layer's parameters (viewparams), checked and bound by the read. */
  viewParams?: Record<string, string>
  style?: RasterStyle
  /** A cascaded WMS layer's GetMap: the remote style named in STYLES, the format the client asked. */
  remote?: { style?: string, format?: string }
}

/** Band values of a rendered area, before styling. */
export interface BandData {
  width: number
  height: number
  /** One array per band, width*height values, row-major: bytes when every source sample is
   *  unsigned 8-bit, floats otherwise. */
  bands: Array<Float32Array | Uint8Array>
  /** 1 where a granule has data, 0 for nodata or no coverage. */
  valid: Uint8Array
  /** Value range of each band over the layer (for stretching), from the granules' statistics or data type. */
  ranges: Array<{ min: number, max: number }>
}
