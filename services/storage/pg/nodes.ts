// The instances sharing one database and one data directory. Each live node has a row it refreshes
// every `heartbeatMs`; a row not refreshed for `deadAfterMs` is a dead node (killed, or cut off
// from the database). Start-up recovery of the shared files (temp files and staging left by a
// crash, files without a catalog row, interrupted tasks) is only safe when no other node is at
// work on them: `startup` runs under a cluster-wide lock and tells its caller whether it is alone.
import crypto from 'node:crypto'
import os from 'node:os'
import { withClusterLock, type PgDatabase } from './database.js'

export interface NodeInfo { id: string, host: string, pid: number, startedAt: number, seenAt: number }

export interface NodeRegistry {
  /** This process's node id (unique per start). */
  readonly id: string
  /**
   * Runs `fn` holding the cluster's start-up lock; `alone` says that no other node is live, and
   * `crashed` (when alone) that a node stopped without closing since the last such start: what it
   * kept in memory (usage not yet flushed) is lost, so the start-up recovers from the files. Once
   * `fn` resolves this node is registered as live (and heartbeats until `close`).
   */
  startup<T> (fn: (alone: boolean, crashed: boolean) => Promise<T>): Promise<T>
  /** Live nodes, this one included once registered, by start time. */
  live (): Promise<NodeInfo[]>
  close (): Promise<void>
}

export interface NodeOptions { heartbeatMs?: number, deadAfterMs?: number, onError?: (err: Error) => void }

export function createNodeRegistry (db: PgDatabase, { heartbeatMs = 2000, deadAfterMs = 10_000, onError = () => {} }: NodeOptions = {}): NodeRegistry {
  const id = crypto.randomUUID()
  const host = os.hostname()
  let timer: NodeJS.Timeout | undefined
  const toInfo = (r: { id: string, host: string, pid: number, started_ms: number, seen_ms: number }): NodeInfo =>
    ({ id: r.id, host: r.host, pid: r.pid, startedAt: r.started_ms, seenAt: r.seen_ms })

  async function live (): Promise<NodeInfo[]> {
    const r = await db.query(`SELECT id, host, pid, (extract(epoch FROM started_at) * 1000)::bigint AS started_ms,
        (extract(epoch FROM seen_at) * 1000)::bigint AS seen_ms
      FROM cluster_nodes WHERE seen_at > now() - make_interval(secs => $1) ORDER BY started_at, id`, [deadAfterMs / 1000])
    // A node of this host whose process is gone died (a kill -9 and a restart within the window).
    return (r.rows as any[]).map(toInfo).filter((n) => n.host !== host || n.id === id || pidAlive(n.pid))
  }

  return {
    id,
    async startup (fn) {
      return await withClusterLock(db, 'startup', async () => {
        const alone = (await live()).length === 0
        // A clean stop removes its node's row: rows left over are nodes that died.
        const crashed = alone && ((await db.query("SELECT 1 FROM cluster_nodes WHERE seen_at > now() - interval '1 day' LIMIT 1")).rowCount ?? 0) > 0
        const out = await fn(alone, crashed)
        if (alone) await db.query('DELETE FROM cluster_nodes')
        await db.query('INSERT INTO cluster_nodes (id, host, pid, started_at, seen_at) VALUES ($1, $2, $3, now(), now())', [id, host, process.pid])
        // Rows of nodes dead for a day are history.
        await db.query("DELETE FROM cluster_nodes WHERE seen_at < now() - interval '1 day'")
        timer = setInterval(() => {
          db.query('UPDATE cluster_nodes SET seen_at = now() WHERE id = $1', [id]).catch(onError)
        }, heartbeatMs)
        timer.unref()
        return out
      })
    },
    live,
    async close () {
      if (timer) clearInterval(timer)
      timer = undefined
      // A clean stop leaves at once rather than after deadAfterMs.
      await db.query('DELETE FROM cluster_nodes WHERE id = $1', [id]).catch(onError)
    }
  }
}

function pidAlive (pid: number): boolean {
  try { process.kill(pid, 0); return true } catch (err) { return (err as { code?: string }).code === 'EPERM' }
}
