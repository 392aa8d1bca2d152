// Whether a PostGIS data store's database answers: one connection with the store's settings, bound
// by its connection timeout (connecting, and each statement), that checks the PostGIS extension and
// the schema, then closes. Every failure is told as the reason an administrator can act on (host
// unknown, nothing listening, authentication, database, PostGIS, schema), never with the password.
import pg from 'pg'
import { pgConnectionConfig, type ConnectionSettings } from './params.js'

export interface ProbeResult { postgisVersion: string }

/** Thrown by the probe: `reason` says what is wrong, in words for the administrator. */
export class ProbeFailure extends Error {
  readonly reason: string
  constructor (reason: string) {
    super(reason)
    this.reason = reason
  }
}

const where = (s: ConnectionSettings) => `${s.host}:${s.port}`

export function reasonOf (err: unknown, s: ConnectionSettings): string {
  const e = err as { code?: string, message?: string }
  switch (e.code) {
    case 'ENOTFOUND': case 'EAI_AGAIN': case 'EAI_NONAME': case 'EAI_FAIL':
      return `host ${JSON.stringify(s.host)} does not resolve`
    case 'ECONNREFUSED':
      return `nothing listens at ${where(s)} (connection refused)`
    case 'EHOSTUNREACH': case 'ENETUNREACH':
      return `host ${where(s)} is unreachable`
    case 'ETIMEDOUT':
      return `no answer from ${where(s)} within ${s.timeout} s (Connection timeout)`
    case 'ECONNRESET': case 'EPIPE':
      return `${where(s)} closed the connection (is it a PostgreSQL server?)`
    case '28P01':
      return `password authentication failed for user ${JSON.stringify(s.user)}`
    case '28000':
      return `the server refused user ${JSON.stringify(s.user)}: ${e.message ?? ''}`
    case '3D000':
      return `database ${JSON.stringify(s.database)} does not exist on ${where(s)}`
    case '53300':
      return `the server at ${where(s)} has no connection slot left`
    case '57014':
      return `the server did not answer within ${s.timeout} s (Connection timeout)`
  }
  const msg = e.message ?? String(err)
  if (/timeout|timed out/i.test(msg)) return `no answer from ${where(s)} within ${s.timeout} s (Connection timeout)`
  if (/SSL/i.test(msg)) return `SSL negotiation with ${where(s)} failed: ${msg}`
  return `${where(s)}: ${msg}`
}

/** Connects with `s`, checks PostGIS and the schema, and disconnects; throws ProbeFailure. */
export async function probePostgis (s: ConnectionSettings): Promise<ProbeResult> {
  const ms = s.timeout * 1000
  const client = new pg.Client(pgConnectionConfig(s))
  // A connection lost after the check must not become an unhandled 'error' event.
  client.on('error', () => undefined)
  // The whole check, DNS included, ends by the timeout (and a second's grace for the close).
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), ms + 1000)
  })
  deadline.catch(() => undefined)
  try {
    return await Promise.race([check(client, s), deadline])
  } catch (err) {
    if (err instanceof ProbeFailure) throw err
    throw new ProbeFailure(reasonOf(err, s))
  } finally {
    clearTimeout(timer)
    // Not awaited: a connection still being attempted closes on its own; the answer need not wait.
    client.end().catch(() => undefined)
  }
}

async function check (client: pg.Client, s: ConnectionSettings): Promise<ProbeResult> {
  await client.connect()
  const ext = await client.query<{ extversion: string }>("SELECT extversion FROM pg_extension WHERE extname = 'postgis'")
  if (ext.rows.length === 0) throw new ProbeFailure(`PostGIS is not installed in database ${JSON.stringify(s.database)} (CREATE EXTENSION postgis)`)
  const schema = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [s.schema])
  if (schema.rows.length === 0) throw new ProbeFailure(`schema ${JSON.stringify(s.schema)} does not exist in database ${JSON.stringify(s.database)}`)
  return { postgisVersion: ext.rows[0].extversion }
}
