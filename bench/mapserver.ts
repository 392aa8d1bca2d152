// The MapServer 8 mapfile both MapServer baselines use (wms.ts through mapscript, mapproxy.ts
// through the mapserv CGI): the bench mosaic's VRT as one raster layer `mosaic`, nearest
// neighbour, RGBA PNG, over the mosaic's extent.
import type { BBox } from '../services/tilecache/grid-sets.js'
import { PNG_OUTPUTFORMAT } from '../test/fixtures/mapserver.js'

/** The bench mosaic's extent (lon 0..20, lat 40..60). */
export const BENCH_LONLAT: BBox = [0, 40, 20, 60]

export function mapfile (vrt: string, onlineResource?: string): string {
  return `MAP
  NAME "bench"
  EXTENT ${BENCH_LONLAT.join(' ')}
  SIZE 512 512
  UNITS DD
  PROJECTION "init=epsg:4326" END
${PNG_OUTPUTFORMAT}
  WEB
    METADATA
      "wms_title" "bench"${onlineResource ? `\n      "wms_onlineresource" "${onlineResource}"` : ''}
      "wms_srs" "EPSG:4326 EPSG:3857 EPSG:900913"
      "wms_enable_request" "*"
    END
  END
  LAYER
    NAME "mosaic"
    TYPE RASTER
    STATUS ON
    DATA "${vrt}"
    PROJECTION "init=epsg:4326" END
    PROCESSING "RESAMPLE=NEAREST"
    METADATA "wms_title" "mosaic" END
  END
END
`
}
