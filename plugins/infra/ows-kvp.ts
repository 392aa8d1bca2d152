// OGC services' key-value parameters (WMS, WFS): the query string, and a POSTed form's fields, by
// upper-cased name (OGC KVP names are case-insensitive; a repeated name: the last one). An XML body
// is a request document, not fields: the service reads it itself.
import { parse as parseQuery } from 'node:querystring'
import type { FastifyRequest } from 'fastify'

type Query = Record<string, string | string[] | undefined>

/** Whether the request's body is an XML document (application/xml, text/xml). */
export const isXmlBody = (req: FastifyRequest): boolean => /^(application|text)\/xml/i.test(req.headers['content-type'] ?? '')

/** The parameters of parsed queries or forms, later ones over earlier; a repeated name: the last value. */
function kvpOf (...queries: unknown[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const q of queries) {
    if (!q || typeof q !== 'object' || Buffer.isBuffer(q)) continue
    for (const [k, v] of Object.entries(q as Query)) {
      if (v === undefined) continue
      out[k.toUpperCase()] = Array.isArray(v) ? String(v[v.length - 1]) : String(v)
    }
  }
  return out
}

export function owsKvp (req: FastifyRequest): Record<string, string> {
  return kvpOf(req.query, req.method === 'POST' && !isXmlBody(req) ? req.body : undefined)
}

/**
 * The same reading of a raw URL's query string (parsed as Fastify's default parser does, node's
 * querystring rules), for a router that decides before the request is parsed.
 */
export function urlKvp (url: string | undefined): Record<string, string> {
  const i = url?.indexOf('?') ?? -1
  return i < 0 ? {} : kvpOf(parseQuery(url!.slice(i + 1)))
}
