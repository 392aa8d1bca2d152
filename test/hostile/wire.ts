// Raw HTTP/1.1 over a TCP socket, for what no HTTP client will send: a Content-Length that lies,
// a body trickled a byte at a time, a header past the server's limit. Returns the first response
// the server writes and whether it then closed the connection.
import net from 'node:net'

export interface WireResponse {
  /** 0 when the server answered nothing before the socket ended or the wait ran out */
  statusCode: number
  headers: Record<string, string>
  body: string
  /** the server closed (or reset) the connection */
  closed: boolean
  /** the wait ran out before a full response or a close */
  timedOut: boolean
}

export interface WireOptions {
  /** sent after the head, one chunk per `trickleEveryMs` until a response arrives */
  trickle?: Buffer
  trickleEveryMs?: number
  /** half-close the socket after writing everything (client says "no more bytes") */
  end?: boolean
  /** give up after this long (a safety net, not an assertion) */
  waitMs?: number
}

export function head (method: string, path: string, headers: Record<string, string | number>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
  return lines.join('\r\n') + '\r\n\r\n'
}

function parse (buf: Buffer): { status: number, headers: Record<string, string>, body: string, complete: boolean } | undefined {
  const end = buf.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine, ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const l of lines) {
    const i = l.indexOf(':')
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim()
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0)
  let body = buf.subarray(end + 4)
  let complete = false
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length'])
    complete = body.length >= n
    body = body.subarray(0, n)
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const text = body.toString('latin1')
    complete = /(^|\r\n)0\r\n\r\n/.test(text)
    let out = ''
    let rest = text
    for (;;) {
      const m = /^([0-9a-f]+)\r\n/i.exec(rest)
      if (!m) break
      const n = parseInt(m[1], 16)
      if (n === 0) break
      out += rest.slice(m[0].length, m[0].length + n)
      rest = rest.slice(m[0].length + n + 2)
    }
    body = Buffer.from(out, 'latin1')
  }
  return { status, headers, body: body.toString('utf8'), complete }
}

/** Writes `raw` (head and any body bytes) to 127.0.0.1:port and reads the first response. */
export function wire (port: number, raw: string | Buffer, opts: WireOptions = {}): Promise<WireResponse> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let data = Buffer.alloc(0)
    let closed = false
    let done = false
    let trickle: NodeJS.Timeout | undefined
    let responded: ReturnType<typeof parse>
    const finish = (timedOut: boolean) => {
      if (done) return
      done = true
      clearInterval(trickle)
      clearTimeout(timer)
      socket.destroy()
      const r = responded ?? parse(data)
      resolve({ statusCode: r?.status ?? 0, headers: r?.headers ?? {}, body: r?.body ?? '', closed, timedOut })
    }
    const timer = setTimeout(() => finish(true), opts.waitMs ?? 10_000)
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk])
      const r = parse(data)
      if (r?.complete && !responded) {
        responded = r
        clearInterval(trickle)
        // Give the server a moment to close the connection, which some cases assert.
        if (/close/i.test(r.headers.connection ?? '')) setTimeout(() => finish(false), 1000)
        else finish(false)
      }
    })
    socket.on('error', () => { closed = true; finish(false) })
    socket.on('close', () => { closed = true; finish(false) })
    socket.on('end', () => { closed = true })
    socket.write(raw)
    if (opts.trickle) {
      let i = 0
      const bytes = opts.trickle
      trickle = setInterval(() => {
        if (i >= bytes.length || socket.destroyed) { clearInterval(trickle); if (opts.end) socket.end(); return }
        socket.write(bytes.subarray(i, ++i))
      }, opts.trickleEveryMs ?? 100)
    } else if (opts.end) socket.end()
  })
}
