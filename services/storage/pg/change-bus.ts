// Coherence between instances: a change one node commits is announced on a PostgreSQL channel
// (NOTIFY, delivered only when the transaction commits), and every node's listener forgets what it
// cached of it (credentials, rules, the catalog mode, lists, styles). A node that lost its listening
// connection cannot know what it missed: once reconnected it tells every subscriber to re-read
// everything ('resync').
import pg from 'pg'
import type { PgClient } from './database.js'

export const CHANNEL = 'mapwarden_changes'

/** The areas whose cached state a change invalidates on every node. */
export type Topic = 'users' | 'catalog' | 'rules' | 'settings' | 'global' | 'services' | 'reload' | 'styles' | 'mosaics' | 'appschema' | 'tiles' | 'gridsets' | 'blobstores' | 'quota' | 'seed'

/** What changed: a topic and an optional key within it (a layer's qualified name, a user...). */
export interface Change { topic: Topic, key?: string }

/** Announces a change inside the caller's transaction: sent on commit, dropped on rollback. */
export async function notify (tx: PgClient, change: Change): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(change)])
}
export type ChangeHandler = (change: Change | 'resync') => void

export interface ChangeBus {
  /** Announces a change inside the caller's transaction (sent on commit, dropped on rollback). */
  announce (client: PgClient, change: Change): Promise<void>
  subscribe (handler: ChangeHandler): () => void
  close (): Promise<void>
}

export interface ChangeBusOptions {
  /** Wait before reconnecting the listener, ms (doubles up to 5 s). */
  retryMs?: number
  onError?: (err: Error) => void
}

export async function createChangeBus (url: string, { retryMs = 100, onError = () => {} }: ChangeBusOptions = {}): Promise<ChangeBus> {
  const handlers = new Set<ChangeHandler>()
  let client: pg.Client | undefined
  let closed = false
  let wait = retryMs
  const emit = (c: Change | 'resync') => {
    for (const h of handlers) {
      try { h(c) } catch (err) { onError(err as Error) }
    }
  }

  async function listen (): Promise<void> {
    const c = new pg.Client({ connectionString: url, application_name: 'mapwarden-listener' })
    c.on('notification', (n) => {
      if (n.channel !== CHANNEL || n.payload === undefined) return
      try { emit(JSON.parse(n.payload) as Change) } catch (err) { onError(err as Error) }
    })
    c.on('error', (err) => { onError(err); void reconnect(c) })
    c.on('end', () => { void reconnect(c) })
    await c.connect()
    await c.query(`LISTEN ${CHANNEL}`)
    client = c
  }

  let reconnecting = false
  async function reconnect (dead: pg.Client): Promise<void> {
    if (closed || reconnecting || client !== dead) return
    reconnecting = true
    client = undefined
    dead.removeAllListeners('end')
    dead.end().catch(() => {})
    while (!closed) {
      await new Promise((resolve) => setTimeout(resolve, wait))
      try {
        await listen()
        wait = retryMs
        emit('resync') // whatever was announced meanwhile is unknown
        break
      } catch (err) {
        onError(err as Error)
        wait = Math.min(wait * 2, 5000)
      }
    }
    reconnecting = false
  }

  await listen()
  return {
    announce: notify,
    subscribe (handler) {
      handlers.add(handler)
      return () => { handlers.delete(handler) }
    },
    async close () {
      closed = true
      const c = client
      client = undefined
      if (c) { c.removeAllListeners('end'); await c.end().catch(() => {}) }
    }
  }
}
