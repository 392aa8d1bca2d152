// Content negotiation and body parsing, shared by every area:
// - the representation comes from the path suffix (.xml .json .sld .zip .html), stripped from the
//   last path parameter before the handler sees it, else from Accept;
// - a body sent to a suffixed resource with no Content-Type or as a form (what `curl -d @file`
//   sends) is parsed by the suffix, so the manuals' curl recipes work verbatim;
// - XML (no DTD, bounded depth), JSON (no prototype poisoning, bounded depth), SLD (charset
//   honoured), text, forms, multipart, and ZIP uploads streamed to a temp file under a size cap.
import fp from 'fastify-plugin'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { pipeline } from 'node:stream/promises'
import { Transform, type Readable } from 'node:stream'
import sjson from 'secure-json-parse'
import { parseXml, assertNoDoctype } from '../../services/files/xml.js'
import {
  BodyTooLarge, InvalidBody, MalformedJson, NotAcceptable, NulCharacter, TooDeep, UnsupportedCharset, UnsupportedMediaType, UploadAborted
} from '../../services/errors.js'
import { MEDIA_TYPES, serialize, type Document, type Format } from './representation.js'
import { decodeQueryPart, queryPairs, redactUrl } from './url-text.js'

export type Suffix = 'xml' | 'json' | 'sld' | 'zip' | 'html'
export interface UploadedFile { path: string, size: number, mediaType: string }

declare module 'fastify' {
  interface FastifyRequest {
    /** Representation asked for by suffix or Accept; undefined when neither says. */
    format?: Suffix
    /** True when the format came from the path suffix. */
    formatFromSuffix: boolean
    /** The body text as received, for XML, SLD and text bodies. */
    rawText?: string
    /** A streamed upload (ZIP), removed after the response unless an area moved it. */
    upload?: UploadedFile
  }
  interface FastifyContextConfig {
    /**
     * The representations a route produces, in GeoServer's order for it (its controller's
     * `produces`): the first answers a request whose Accept leaves the choice open (a wildcard, or none:
     * what curl and Python's requests send). Default: XML first.
     */
    produces?: Format[]
  }
  interface FastifyReply {
    /** Sends a document as XML or JSON, as the request asked (default: the route's `produces` order, else XML). */
    resource (doc: Document, status?: number): FastifyReply
    /**
     * Like resource(), for a document built from an immutable source object (a cached list): the
     * serialized body is kept for as long as that object lives.
     */
    cachedResource (source: object, build: () => Document): FastifyReply
  }
}

const SUFFIX = /\.(xml|json|sld|zip|html)$/i
const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed', 'application/x-zip']
const SLD_TYPES = ['application/vnd.ogc.sld+xml', 'application/vnd.ogc.se+xml']
/** A GeoPackage sent as it is (PUT .../file.gpkg only; every other route answers these 415 as before). */
export const GEOPACKAGE_TYPES = ['application/geopackage+sqlite3', 'application/x-sqlite3', 'application/vnd.sqlite3']
/** A GeoTIFF sent as it is (PUT .../file.geotiff only, as the GeoPackage above). */
export const TIFF_TYPES = ['image/tiff', 'image/geotiff', 'image/x-tiff']
export const ACCEPTED_TYPES = ['application/xml', 'text/xml', 'application/json', 'text/json', 'text/plain', ...SLD_TYPES, ...ZIP_TYPES,
  'application/x-www-form-urlencoded', 'multipart/form-data']
const MAX_JSON_DEPTH = 256

export function formatFromAccept (accept: string | undefined): Format | undefined | null {
  if (!accept) return undefined
  const ranked = accept.split(',').map((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return { type: type.trim(), q: q ? Number(q.slice(2)) : 1 }
  }).filter((r) => r.q > 0).sort((a, b) => b.q - a.q)
  for (const r of ranked) {
    if (r.type === 'application/json' || r.type === 'text/json') return 'json'
    if (r.type === 'application/xml' || r.type === 'text/xml') return 'xml'
    if (r.type === '*/*' || r.type === 'application/*' || r.type === 'text/*') return undefined
  }
  return null // Accept names only types we do not produce
}

function checkJsonDepth (text: string): void {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) { if (++depth > MAX_JSON_DEPTH) throw TooDeep('JSON', MAX_JSON_DEPTH) }
    else if (c === 125 || c === 93) depth--
  }
}

export function parseJson (text: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) throw MalformedJson('byte order mark before the JSON text')
  checkJsonDepth(text)
  let value: unknown
  try {
    value = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (err) {
    throw MalformedJson((err as Error).message)
  }
  checkXmlText(value)
  return value
}

/**
 * Every resource has an XML representation too: a text field that XML 1.0 cannot carry (C0
 * controls but tab, newline and carriage return; U+FFFE, U+FFFF; lone surrogates) would make it
 * not well-formed. Refused whatever the body format, naming the field.
 */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u
function checkXmlText (value: unknown, where = ''): void {
  if (typeof value === 'string') {
    if (NOT_XML.test(value)) throw InvalidBody(`Field ${where || '(the body)'} holds a character that XML cannot carry (a control character or a lone surrogate)`)
  } else if (Array.isArray(value)) value.forEach((v, i) => checkXmlText(v, `${where}[${i}]`))
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (NOT_XML.test(k)) throw InvalidBody(`A field name in ${where || 'the body'} holds a character that XML cannot carry`)
      checkXmlText(v, where ? `${where}.${k}` : k)
    }
  }
}

/**
 * U+0000 is text that no column can hold on PostgreSQL (text and jsonb refuse it; SQLite keeps it,
 * so the two backends would answer differently) and that no name, file name or SLD may carry. It
 * is refused wherever request text is read, naming where it was: the path and each query
 * parameter here (an escape %00 is the only way a URL carries it), each field of a JSON or XML body
 * (checkXmlText), SLD bodies, form fields; plain text where it is read (a harvest location).
 * Binary uploads (ZIP) are not text.
 */
const URL_NUL = /%00|\u0000/
export function refuseNulInUrl (url: string): void {
  if (!URL_NUL.test(url)) return
  const q = url.indexOf('?')
  if (URL_NUL.test(q < 0 ? url : url.slice(0, q))) throw NulCharacter('Malformed URL: the path')
  for (const { name, value } of queryPairs(url.slice(q + 1))) {
    if (URL_NUL.test(name)) throw NulCharacter(`A query parameter name (${JSON.stringify(decodeQueryPart(name))})`)
    if (value !== undefined && URL_NUL.test(value)) throw NulCharacter(`Query parameter ${decodeQueryPart(name)}`)
  }
}

/** A text body (SLD, the comments of an XML body) with U+0000, refused naming the line. */
function refuseNulInText (text: string, what: string): void {
  const at = text.indexOf('\u0000')
  if (at < 0) return
  const before = text.slice(0, at).split('\n')
  throw NulCharacter(`${what} (line ${before.length}, column ${before[before.length - 1].length + 1})`)
}

/** The charset parameter of a Content-Type, if any. */
const charsetOf = (contentType: string): string | undefined => /charset\s*=\s*"?([^";]+)"?/i.exec(contentType)?.[1].trim()

function decode (body: Buffer, contentType: string): string {
  const parameter = charsetOf(contentType)
  const charset = parameter ?? xmlEncoding(body)
  try {
    return new TextDecoder(charset ?? 'utf-8', { fatal: false }).decode(body)
  } catch {
    if (parameter === undefined) throw InvalidBody(`Unknown encoding ${JSON.stringify(charset)} in the XML declaration`)
    throw UnsupportedCharset(JSON.stringify(charset))
  }
}

/**
 * The encoding of an XML body sent without a charset parameter, as the XML specification's
 * appendix F detects it: a byte order mark (UTF-8, UTF-16 LE/BE), else the encoding declaration
 * (`<?xml version="1.0" encoding="ISO-8859-1"?>`), else UTF-8. A charset parameter wins (RFC 7303).
 */
function xmlEncoding (body: Buffer): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8'
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le'
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be'
  const head = body.subarray(0, 200).toString('latin1')
  return /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._-]*)["']/.exec(head)?.[1]
}

/** A body the client stopped sending (closed the connection): nobody waits for an answer. */
function clientAborted (err: unknown): boolean {
  const e = err as NodeJS.ErrnoException
  return e?.code === 'ECONNRESET' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.message === 'aborted'
}

async function streamToFile (payload: Readable, target: string, limit: number,
  onAbort: (bytes: number) => void = () => {}): Promise<number> {
  let size = 0
  const cap = new Transform({
    transform (chunk: Buffer, _enc, cb) {
      size += chunk.length
      if (size > limit) cb(BodyTooLarge(limit))
      else cb(null, chunk)
    }
  })
  const out = fs.createWriteStream(target, { flags: 'wx' })
  try {
    await pipeline(payload, cap, out)
  } catch (err) {
    // pipeline rejects once the streams are told to stop, not once they have: a body that fails
    // before the file is open would have it created after the rm below. Wait for the close first.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()))
    await fs.promises.rm(target, { force: true })
    if (clientAborted(err)) { onAbort(size); throw UploadAborted(size) }
    throw err
  }
  return size
}

export interface NegotiateOptions { bodyLimit: number, uploadLimit: number, uploadDir: string }

async function negotiate (app: FastifyInstance, opts: NegotiateOptions) {
  await fs.promises.mkdir(opts.uploadDir, { recursive: true })
  app.decorateRequest('format', undefined)
  app.decorateRequest('formatFromSuffix', false)
  app.decorateRequest('rawText', undefined)
  app.decorateRequest('upload', undefined)

  app.addHook('onRequest', (req: FastifyRequest, _reply, done) => {
    try { refuseNulInUrl(req.url) } catch (err) { return done(err as Error) }
    const urlPath = req.url.split('?')[0]
    const m = SUFFIX.exec(urlPath)
    if (m) {
      const ext = m[1].toLowerCase() as Suffix
      req.format = ext
      req.formatFromSuffix = true
      const routeUrl = req.routeOptions.url ?? ''
      const last = /:(\w+)$/.exec(routeUrl)
      const params = req.params as Record<string, string> | undefined
      if (last && params && typeof params[last[1]] === 'string' && params[last[1]].toLowerCase().endsWith('.' + ext)) {
        params[last[1]] = params[last[1]].slice(0, -(ext.length + 1))
      }
    } else {
      const f = formatFromAccept(req.headers.accept)
      req.format = f === undefined ? req.routeOptions.config?.produces?.[0] : f ?? undefined
    }
    // GeoServer takes text/json wherever it takes application/json: one name from here on, so every
    // area's parser and media-type checks see it (parameters such as charset kept).
    if (/^\s*text\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      req.headers['content-type'] = req.headers['content-type']!.replace(/^\s*text\/json/i, 'application/json')
    }
    // A body to a suffixed resource without a fitting media type is read by the suffix.
    const ct = (req.headers['content-type'] ?? '').toLowerCase()
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
    if (hasBody && req.formatFromSuffix && (req.format === 'xml' || req.format === 'json') &&
        (ct === '' || ct.startsWith('application/x-www-form-urlencoded'))) {
      req.headers['content-type'] = req.format === 'xml' ? 'application/xml' : 'application/json'
    }
    done()
  })

  const formatOf = (req: FastifyRequest): Format => {
    if (req.format === 'xml' || req.format === 'json') return req.format
    if (req.formatFromSuffix || formatFromAccept(req.headers.accept) === null) {
      throw NotAcceptable(req.formatFromSuffix ? '.' + req.format : JSON.stringify(req.headers.accept), 'application/xml, application/json')
    }
    return 'xml'
  }
  app.decorateReply('resource', function (this: FastifyReply, doc: Document, status = 200) {
    const format = formatOf(this.request)
    return this.code(status).type(MEDIA_TYPES[format]).send(serialize(doc, format))
  })
  // Serialized bodies of an unchanged source object, per format and origin (hrefs are absolute).
  const bodies = new WeakMap<object, Map<string, string>>()
  app.decorateReply('cachedResource', function (this: FastifyReply, source: object, build: () => Document) {
    const req = this.request
    const format = formatOf(req)
    // Per origin, as the hrefs are written (the proxy base URL when one is set).
    const key = `${format} ${req.server.urls?.root(req) ?? `${req.protocol}://${req.host}`}`
    let forSource = bodies.get(source)
    if (!forSource) bodies.set(source, forSource = new Map())
    let body = forSource.get(key)
    if (body === undefined) {
      body = serialize(build(), format)
      if (forSource.size < 16) forSource.set(key, body) // a few origins at most; never unbounded
    }
    return this.code(200).type(MEDIA_TYPES[format]).send(body)
  })

  app.removeAllContentTypeParsers()
  const xml = async (req: FastifyRequest, body: Buffer) => {
    const text = decode(body, req.headers['content-type'] ?? '')
    req.rawText = text
    // Values as sent, like a JSON body's (services/files/xml.ts: no trim).
    const doc = await parseXml(text, { trim: false })
    // The same rule as JSON bodies: a field's text must be one XML can carry (sax lets raw C0
    // controls through); then U+0000 anywhere else (a comment) is refused too, as rawText is kept.
    checkXmlText(doc)
    refuseNulInText(text, 'The XML body')
    return doc
  }
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'buffer', bodyLimit: opts.bodyLimit }, xml)
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: opts.bodyLimit },
    async (req: FastifyRequest, body: Buffer) => {
      // RFC 8259: JSON text exchanged between systems is UTF-8; any other charset is a mistake.
      const charset = charsetOf(req.headers['content-type'] ?? '')
      if (charset !== undefined && !/^(utf-?8|us-ascii)$/i.test(charset)) throw UnsupportedCharset(JSON.stringify(charset) + ' (JSON is UTF-8)')
      const text = body.toString('utf8')
      // XML (an SLD, a GeoServer document) labelled as JSON: the label is wrong, not the JSON.
      if (/^\s*</.test(text)) throw UnsupportedMediaType('application/json for an XML body', 'application/xml, text/xml, application/vnd.ogc.sld+xml')
      return parseJson(text)
    })
  app.addContentTypeParser(SLD_TYPES, { parseAs: 'buffer', bodyLimit: opts.bodyLimit }, async (req: FastifyRequest, body: Buffer) => {
    const text = decode(body, req.headers['content-type'] ?? '')
    assertNoDoctype(text)
    refuseNulInText(text, 'The SLD body')
    req.rawText = text
    return text
  })
  app.addContentTypeParser('text/plain', { parseAs: 'buffer', bodyLimit: opts.bodyLimit }, async (req: FastifyRequest, body: Buffer) => {
    // Not refused here: a binary body mislabelled text/plain is a route's 415 first (hostile #18);
    // the one route that reads plain text (a harvest location) refuses a NUL itself, a 400.
    const text = decode(body, req.headers['content-type'] ?? '')
    req.rawText = text
    return text
  })
  app.addContentTypeParser(ZIP_TYPES, async (req: FastifyRequest, payload: Readable) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > opts.uploadLimit) throw BodyTooLarge(opts.uploadLimit)
    const target = path.join(opts.uploadDir, `${Date.now()}-${randomBytes(8).toString('hex')}.upload`)
    const size = await streamToFile(payload, target, opts.uploadLimit,
      (bytes) => req.log.warn({ route: `${req.method} ${req.routeOptions.url ?? redactUrl(req.url.split('?')[0])}`, bytes }, 'upload aborted by the client'))
    req.upload = { path: target, size, mediaType: 'application/zip' }
    return req.upload
  })
  // A file sent as it is, to the one kind of route that takes it (every other route: 415 as before).
  const fileBody = (route: RegExp, mediaType: string) => async (req: FastifyRequest, payload: Readable) => {
    if (!route.test(req.url.split('?')[0])) throw UnsupportedMediaType(req.headers['content-type'] ?? '(none)', ACCEPTED_TYPES.join(', '))
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > opts.uploadLimit) throw BodyTooLarge(opts.uploadLimit)
    const target = path.join(opts.uploadDir, `${Date.now()}-${randomBytes(8).toString('hex')}.upload`)
    const size = await streamToFile(payload, target, opts.uploadLimit,
      (bytes) => req.log.warn({ route: `${req.method} ${req.routeOptions.url ?? redactUrl(req.url.split('?')[0])}`, bytes }, 'upload aborted by the client'))
    req.upload = { path: target, size, mediaType }
    return req.upload
  }
  app.addContentTypeParser(GEOPACKAGE_TYPES, fileBody(/\/file\.gpkg$/i, 'application/geopackage+sqlite3'))
  app.addContentTypeParser(TIFF_TYPES, fileBody(/\/file\.geotiff$/i, 'image/tiff'))
  app.addContentTypeParser('*', async (req: FastifyRequest) => {
    throw UnsupportedMediaType(req.headers['content-type'] ?? '(none)', ACCEPTED_TYPES.join(', '))
  })
  await app.register(formbody, { bodyLimit: opts.bodyLimit })
  app.addHook('preValidation', async (req: FastifyRequest) => {
    if (!/^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '') || !req.body || typeof req.body !== 'object') return
    for (const [key, value] of Object.entries(req.body as Record<string, unknown>)) {
      if (key.includes('\u0000')) throw NulCharacter(`A form field name (${JSON.stringify(key)})`)
      if ([value].flat().some((v) => typeof v === 'string' && v.includes('\u0000'))) throw NulCharacter(`Form field ${key}`)
    }
  })
  await app.register(multipart, { limits: { fileSize: opts.uploadLimit, files: 1, fields: 50, parts: 60 } })

  // The temp file goes before the response is written (onSend), so a client that sees the answer,
  // success or refusal, never sees it on disk; onResponse catches the replies that skip onSend.
  // (Not onRequestAbort: a handler may still be reading the file after the client has gone.)
  const removeUpload = (req: FastifyRequest): Promise<void> => {
    const upload = req.upload
    if (!upload) return Promise.resolve()
    req.upload = undefined
    return fs.promises.rm(upload.path, { force: true }).catch((err) => { req.log.warn({ err }, 'could not remove an upload temp file') })
  }
  app.addHook('onSend', async (req, _reply, payload) => { await removeUpload(req); return payload })
  app.addHook('onResponse', async (req) => { await removeUpload(req) })
}

export default fp(negotiate, { name: 'negotiate' })
