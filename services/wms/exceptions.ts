// WMS errors as clients read them: the OGC exception code of a failure and the
// ServiceExceptionReport document (WMS 1.1.1 section 7.3.3 / DTD exception_1_1_1.dtd;
// WMS 1.3.0 section 6.11 / exceptions_1_3_0.xsd). The HTTP status stays the one
// plugins/infra/errors.ts gives the failure's kind.
import type { WmsVersion } from './request.js'
import { escapeXml } from '../xml-escape.js'

// Characters XML 1.0 cannot carry at all.
// eslint-disable-next-line no-control-regex
const xmlSafe = (s: string) => s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '?')

const BY_CODE: Record<string, string> = {
  MW_WMS_LAYER_NOT_DEFINED: 'LayerNotDefined',
  MW_TILES_LAYER_NOT_FOUND: 'LayerNotDefined',
  MW_TILES_LAYER_NOT_DRAWABLE: 'LayerNotDefined',
  MW_MOSAIC_LAYER_NOT_FOUND: 'LayerNotDefined',
  MW_WMS_STYLE_NOT_DEFINED: 'StyleNotDefined',
  MW_STYLES_NOT_FOUND: 'StyleNotDefined',
  MW_WMS_INVALID_FORMAT: 'InvalidFormat',
  MW_WMS_MISSING_PARAMETER: 'MissingParameterValue',
  MW_WMS_INVALID_PARAMETER: 'InvalidParameterValue',
  MW_WMS_TOO_LARGE: 'InvalidParameterValue',
  MW_WMS_NOT_TILE_ALIGNED: 'InvalidParameterValue',
  MW_MOSAIC_INVALID_CQL: 'InvalidParameterValue',
  MW_VECTOR_INVALID_VIEWPARAMS: 'InvalidParameterValue',
  MW_STYLES_INVALID: 'InvalidParameterValue',
  MW_CORE_MALFORMED_XML: 'InvalidParameterValue',
  MW_CORE_DOCTYPE_NOT_ALLOWED: 'InvalidParameterValue',
  MW_CORE_NUL_CHARACTER: 'InvalidParameterValue',
  MW_WMS_INVALID_DIMENSION: 'InvalidDimensionValue',
  MW_WMS_OPERATION_NOT_SUPPORTED: 'OperationNotSupported',
  MW_WMS_INVALID_POINT: 'InvalidPoint',
  MW_WMS_LAYER_NOT_QUERYABLE: 'LayerNotQueryable',
  MW_WMS_SERVICE_DISABLED: 'ServiceUnavailable'
}

/** The OGC exception code of a failure; undefined when the specification has none (NoApplicableCode). */
export function ogcCode (err: unknown, version: WmsVersion): string | undefined {
  const code = (err as { code?: unknown })?.code
  if (code === 'MW_WMS_INVALID_CRS' || code === 'MW_CASCADE_CRS_UNSUPPORTED') return version === '1.3.0' ? 'InvalidCRS' : 'InvalidSRS'
  return typeof code === 'string' ? BY_CODE[code] : undefined
}

export const EXCEPTION_TYPES: Record<WmsVersion, string> = { '1.1.1': 'application/vnd.ogc.se_xml', '1.3.0': 'text/xml' }

export function serviceExceptionReport (version: WmsVersion, message: string, code?: string, locator?: string): string {
  const attrs = `${code ? ` code="${escapeXml(code)}"` : ''}${locator ? ` locator="${escapeXml(locator)}"` : ''}`
  const body = `<ServiceException${attrs}>\n      ${escapeXml(xmlSafe(message))}\n</ServiceException>`
  if (version === '1.1.1') {
    return `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<ServiceExceptionReport version="1.1.1">   ${body}</ServiceExceptionReport>`
  }
  return '<?xml version="1.0" encoding="UTF-8"?>\n<ServiceExceptionReport version="1.3.0" xmlns="http://www.opengis.net/ogc" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
    `xsi:schemaLocation="http://www.opengis.net/ogc http://schemas.opengis.net/wms/1.3.0/exceptions_1_3_0.xsd">   ${body}</ServiceExceptionReport>`
}
