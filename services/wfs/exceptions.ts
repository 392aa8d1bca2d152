// WFS errors as clients read them: the OGC exception code and locator of a failure, and the report
// of each version as GeoServer writes it: ows:ExceptionReport of OWS 1.1 (WFS 2.0.0), of OWS 1.0
// (WFS 1.1.0), and the ogc ServiceExceptionReport 1.2.0 (WFS 1.0.0). statusOf gives the HTTP
// status GeoServer's Wfs2ExceptionHandler sets for 2.0.0: 404 for NotFound, 500 for
// OperationProcessingFailed, 400 for every other code; 1.x answers 200 (the plugin decides).
import type { WfsVersion } from './request.js'
import { escapeXml } from '../xml-escape.js'

// eslint-disable-next-line no-control-regex
const xmlSafe = (s: string) => s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '?')

/** Code and locator of a failure (the locator: a fixed name, or the failure's first argument). */
const BY_CODE: Record<string, { code: string, locator?: string | ((args: readonly unknown[]) => string | undefined) }> = {
  MW_WFS_MISSING_PARAMETER: { code: 'MissingParameterValue', locator: (a) => String(a[0]) },
  MW_WFS_INVALID_PARAMETER: { code: 'InvalidParameterValue', locator: (a) => String(a[0]) },
  MW_WFS_UNKNOWN_TYPE: { code: 'InvalidParameterValue', locator: 'typeName' },
  MW_WFS_INVALID_FILTER: { code: 'InvalidParameterValue', locator: 'filter' },
  MW_WFS_OPERATION_NOT_SUPPORTED: { code: 'OperationNotSupported', locator: (a) => String(a[0]).replace(/"/g, '') },
  MW_WFS_VERSION_NEGOTIATION_FAILED: { code: 'VersionNegotiationFailed', locator: 'AcceptVersions' },
  MW_WFS_FEATURE_NOT_FOUND: { code: 'NotFound', locator: 'ID' },
  MW_WFS_SERVICE_DISABLED: { code: 'ServiceUnavailable' },
  MW_WFS_CANNOT_LOCK_ALL: { code: 'CannotLockAllFeatures', locator: 'lockAction' },
  MW_WFS_FEATURE_LOCKED: { code: 'MissingParameterValue', locator: 'lockId' },
  MW_WFS_INVALID_LOCK_ID: { code: 'InvalidLockId', locator: 'lockId' },
  MW_WFS_LOCK_EXPIRED: { code: 'LockHasExpired', locator: 'lockId' },
  MW_FILTER_INVALID_XML: { code: 'InvalidParameterValue', locator: 'filter' },
  MW_FILTER_UNSUPPORTED_OPERATOR: { code: 'OperationNotSupported', locator: (a) => String(a[0]) },
  MW_MOSAIC_INVALID_CQL: { code: 'InvalidParameterValue', locator: 'cql_filter' },
  MW_VECTOR_INVALID_QUERY: { code: 'InvalidParameterValue' },
  MW_VECTOR_INVALID_VIEWPARAMS: { code: 'InvalidParameterValue', locator: 'viewparams' },
  MW_CORE_MALFORMED_XML: { code: 'OperationParsingFailed' },
  MW_CORE_DOCTYPE_NOT_ALLOWED: { code: 'OperationParsingFailed' },
  MW_CORE_TOO_DEEP: { code: 'OperationParsingFailed' },
  MW_CORE_NUL_CHARACTER: { code: 'InvalidParameterValue' },
  MW_CORE_WORKSPACE_NOT_FOUND: { code: 'InvalidParameterValue' }
}

export interface OgcFailure { code: string, locator?: string }

/** The OGC code of a failure; NoApplicableCode when the specification has none. */
export function ogcFailure (err: unknown): OgcFailure {
  const e = err as { code?: unknown, args?: readonly unknown[] }
  const m = typeof e?.code === 'string' ? BY_CODE[e.code] : undefined
  if (!m) return { code: 'NoApplicableCode' }
  const locator = typeof m.locator === 'function' ? m.locator(e.args ?? []) : m.locator
  return { code: m.code, ...(locator ? { locator } : {}) }
}

/** GeoServer's HTTP status of a WFS 2.0 exception code. */
export function statusOfCode (code: string): number {
  if (code === 'NotFound') return 404
  if (code === 'OperationProcessingFailed') return 500
  return 400
}

export const EXCEPTION_TYPE = 'application/xml'

export function exceptionReport (version: WfsVersion, message: string, f: OgcFailure): string {
  const text = escapeXml(xmlSafe(message))
  const locator = f.locator ? ` locator="${escapeXml(f.locator)}"` : ''
  if (version === '1.0.0') {
    return '<?xml version="1.0" ?>\n<ServiceExceptionReport version="1.2.0" xmlns="http://www.opengis.net/ogc" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
      'xsi:schemaLocation="http://www.opengis.net/ogc http://schemas.opengis.net/wfs/1.0.0/OGC-exception.xsd">\n' +
      `  <ServiceException code="${escapeXml(f.code)}"${locator}>\n    ${text}\n  </ServiceException>\n</ServiceExceptionReport>`
  }
  const [ns, owsVersion, schema] = version === '2.0.0'
    ? ['http://www.opengis.net/ows/1.1', '2.0.0', 'http://schemas.opengis.net/ows/1.1.0/owsAll.xsd']
    : ['http://www.opengis.net/ows', '1.0.0', 'http://schemas.opengis.net/ows/1.0.0/owsExceptionReport.xsd']
  return `<?xml version="1.0" encoding="UTF-8"?><ows:ExceptionReport xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ows="${ns}" version="${owsVersion}" xsi:schemaLocation="${ns} ${schema}">\n` +
    `<ows:Exception exceptionCode="${escapeXml(f.code)}"${locator}>\n<ows:ExceptionText>${text}</ows:ExceptionText>\n</ows:Exception>\n</ows:ExceptionReport>\n`
}
