// OGC services' key-value parameters (WMS, WFS): the query string, and a POSTed form's fields, by
// upper-cased name (OGC KVP names are case-insensitive; a repeated name: the last one). An XML body
// is a request document, not fields: the service reads it itself.
import type { FastifyRequest } from 'fastify'

type Query = Record<string, string | string[] | undefined>

/** Whether the request's body is an XML document (application/xml, text/xml). */
export const isXmlBody = (req: FastifyRequest): boolean => /^(application|text)\/xml/i.test(req.headers['content-type'] ?? '')

export function owsKvp (req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {}
  const add = (q: unknown) => {
    if (!q || typeof q !== 'object' || Buffer.isBuffer(q)) return
    for (const [k, v] of Object.entries(q as Query)) {
      if (v === undefined) continue
      out[k.toUpperCase()] = Array.isArray(v) ? String(v[v.length - 1]) : String(v)
    }
  }
  add(req.query)
  if (req.method === 'POST' && !isXmlBody(req)) add(req.body)
  return out
}
