// The one place where failures become HTTP responses: domain errors by kind, Fastify's own errors by
// code, everything else 500 with the detail in the log only. Bodies are GeoServer-style text/plain.
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isConnectionError, isMapwardenError, isStorageFull, type ErrorKind } from '../../services/errors.js'

export const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  too_large: 413,
  unsupported: 415,
  unprocessable: 422,
  busy: 429,
  bad_gateway: 502,
  unavailable: 503,
  storage_full: 507
}

const FASTIFY_CODES: Record<string, number> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_CTP_EMPTY_JSON_BODY: 400,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
  FST_ERR_CTP_INVALID_TYPE: 400,
  FST_ERR_VALIDATION: 400,
  FST_REQ_FILE_TOO_LARGE: 413,
  FST_FILES_LIMIT: 413,
  FST_PARTS_LIMIT: 413,
  FST_INVALID_MULTIPART_CONTENT_TYPE: 406
}

export function statusOf (err: FastifyError | Error): number {
  if (isMapwardenError(err)) return STATUS[err.kind]
  const e = err as FastifyError & { errno?: number, code?: string }
  if (isStorageFull(e)) return 507 // ENOSPC, EDQUOT, SQLITE_FULL
  if (e.code === 'EMFILE' || e.code === 'ENFILE') return 503 // out of file descriptors: try again, not a fault
  if (isConnectionError(e)) return 503 // the PostgreSQL catalog does not answer: nothing was changed
  if (e.validation) return 400
  if (e.code && FASTIFY_CODES[e.code]) return FASTIFY_CODES[e.code]
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return e.statusCode
  return 500
}

/** Control characters in a message (a path segment with NUL, a name echoed back) as \\uXXXX;
 *  tabs and newlines stay (multi-line problem lists). */
export function escapeControls (message: string): string {
  return message.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}

function messageOf (err: FastifyError | Error, status: number): string {
  if (isMapwardenError(err)) return err.message
  const e = err as FastifyError & { code?: string }
  if (status === 507) return 'Not enough space on the data directory to complete the request'
  if (e.code === 'EMFILE' || e.code === 'ENFILE') return 'The server has too many files open; try again later'
  if (status === 503 && isConnectionError(e)) return 'The catalog database is not reachable; try again later'
  if (status === 401) return 'HTTP Basic authentication required'
  if (e.validation) return refusal(e) ?? `Invalid request: ${err.message}`
  if (status >= 500) return 'Internal server error'
  return err.message
}

/** GeoServer's message for a body a schema refused, from its `x-refusal` (infra/body-validation.ts). */
function refusal (e: FastifyError): string | undefined {
  const first = e.validation?.[0] as { refusal?: string } | undefined
  return e.validationContext === 'body' ? first?.refusal : undefined
}

async function errors (app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const status = statusOf(err)
    if (status >= 500 && status !== 507 && status !== 503) req.log.error({ err }, 'unexpected failure')
    else req.log.info({ status, code: (err as FastifyError).code, msg: err.message }, 'request refused')
    // Exactly GeoServer's challenge: clients and proxies match it verbatim.
    if (status === 401) reply.header('WWW-Authenticate', 'Basic realm="GeoServer Realm"')
    else reply.removeHeader('www-authenticate')
    // A full render queue, a shutdown, granules changing under a render: worth trying again soon.
    if (status === 503) reply.header('Retry-After', '1')
    return reply.code(status).type('text/plain; charset=utf-8').send(escapeControls(messageOf(err, status)))
  })
}

export default fp(errors, { name: 'errors' })
