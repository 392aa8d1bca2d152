// The PostgreSQL catalog stores: the counterparts of sqlite-store.ts, one transaction per method.
// Workspace names are also written folded (name_key, foldName): its UNIQUE index refuses a second
// name equal under case folding on every node at once, where SQLite compares with mw_fold. Lists
// sort with COLLATE "C", byte order as in SQLite, whatever the database's collation. Every write
// announces 'catalog' on the change bus (key: the workspace, or the layer's qualified name).
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import { foldName } from '../files/names.js'
import { createPgCatalogRowWriter } from './pg-catalog-rows.js'
import { NamespaceUriExists, WorkspaceExists, WorkspaceNotEmpty, WorkspaceNotFound } from '../errors.js'
import { defaultWorkspaceSql, LAYER_SELECT, layerFromRow, layerGroupDoc, layerGroupFromRow, workspaceFromRow, type WorkspaceRow } from './store-rows.js'
import type { LayerGroupStore, LayerStore, WorkspaceStore } from './store.js'

const UNIQUE_VIOLATION = '23505'
const URI_INDEX = 'workspaces_namespace_uri'

/** A unique violation of the namespace URI index as the domain's error; anything else as it is. */
function uriClash (err: unknown, uri: string): unknown {
  const e = err as { code?: string, constraint?: string }
  return e.code === UNIQUE_VIOLATION && e.constraint === URI_INDEX ? NamespaceUriExists(uri) : err
}

/** A transaction's client, or the pool for a read outside one. */
type Queryable = Pick<PgDatabase, 'query'>

export function createPgWorkspaceStore (db: PgDatabase): WorkspaceStore {
  const get = async (q: Queryable, name: string, lock = '') =>
    (await q.query<WorkspaceRow>(`SELECT name, namespace_uri, isolated FROM workspaces WHERE name = $1 ${lock}`, [name])).rows[0]
  /**
   * Locks workspace `name` for the rest of the transaction (throws WorkspaceNotFound): a store or
   * style being created in it holds a KEY SHARE lock through its foreign key, so it either
   * committed before (and is counted) or waits, and then finds the workspace gone or renamed.
   */
  const lockExisting = async (c: PgClient, name: string) => {
    if (await get(c, name, 'FOR UPDATE') === undefined) throw WorkspaceNotFound(name)
  }
  const setDefault = async (c: PgClient, name: string) => {
    await c.query(`INSERT INTO default_workspace (id, workspace) VALUES ('default', $1)
      ON CONFLICT (id) DO UPDATE SET workspace = EXCLUDED.workspace`, [name])
  }
  /** Number of stores, styles and layer groups that live in the workspace (GeoServer counts groups too). */
  const contents = async (c: PgClient, name: string) =>
    (await c.query<{ n: number }>(`SELECT (SELECT count(*) FROM stores WHERE workspace = $1) +
      (SELECT count(*) FROM styles WHERE workspace = $1) + (SELECT count(*) FROM layer_groups WHERE workspace = $1) AS n`, [name])).rows[0].n

  return {
    async list () {
      return (await db.query<WorkspaceRow>('SELECT name, namespace_uri, isolated FROM workspaces ORDER BY name COLLATE "C"')).rows.map(workspaceFromRow)
    },
    async get (name) {
      const r = await get(db, name)
      return r ? workspaceFromRow(r) : undefined
    },
    async insert (ws, makeDefault = false) {
      // One statement: whichever of two racing creates of names that fold the same commits first
      // wins; the other waits for it and then inserts nothing. Two creates of the very same name can
      // also meet on the primary key (checked before the arbiter once both have passed its pre-check):
      // then the name exists, as after a lost race. A namespace URI another workspace has is a unique
      // violation (its index), refused by name.
      try {
        return await db.transaction(async (c) => {
          const r = await c.query(`INSERT INTO workspaces (name, name_key, namespace_uri, isolated, created_at)
            VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name_key) DO NOTHING`,
          [ws.name, foldName(ws.name), ws.namespaceUri, ws.isolated ? 1 : 0, new Date().toISOString()])
          if (r.rowCount !== 1) return false
          if (makeDefault) await setDefault(c, ws.name)
          await notify(c, { topic: 'catalog', key: ws.name })
          return true
        })
      } catch (err) {
        const e = err as { code?: string, constraint?: string }
        if (e.code === UNIQUE_VIOLATION && e.constraint === 'workspaces_pkey') return false
        throw uriClash(err, ws.namespaceUri)
      }
    },
    async update (name, ws) {
      try {
        await db.transaction(async (c) => {
          await lockExisting(c, name)
          if (ws.name !== name) {
            // Renaming would orphan stores, styles and tile sets; GeoServer refuses it for non-empty ones too.
            if (await contents(c, name) > 0) throw WorkspaceNotEmpty()
            const same = (await c.query<{ name: string }>('SELECT name FROM workspaces WHERE name_key = $1', [foldName(ws.name)])).rows[0]
            if (same && same.name !== name) throw WorkspaceExists(ws.name)
          }
          await c.query('UPDATE workspaces SET name = $1, name_key = $2, namespace_uri = $3, isolated = $4 WHERE name = $5',
            [ws.name, foldName(ws.name), ws.namespaceUri, ws.isolated ? 1 : 0, name])
          await notify(c, { topic: 'catalog', key: name })
          if (ws.name !== name) await notify(c, { topic: 'catalog', key: ws.name })
        })
      } catch (err) {
        // Another node took the new name (or one that folds the same) after the check above.
        const e = err as { code?: string, constraint?: string }
        if (e.code === UNIQUE_VIOLATION && e.constraint !== URI_INDEX) throw WorkspaceExists(ws.name)
        throw uriClash(err, ws.namespaceUri)
      }
    },
    async remove (name, recurse) {
      await db.transaction(async (c) => {
        await lockExisting(c, name)
        if (!recurse && await contents(c, name) > 0) throw WorkspaceNotEmpty()
        await c.query('DELETE FROM workspaces WHERE name = $1', [name])
        await notify(c, { topic: 'catalog', key: name })
      })
    },
    async defaultName () {
      return (await db.query<{ name: string }>(defaultWorkspaceSql('seq'))).rows[0]?.name
    },
    async setDefault (name) {
      await db.transaction(async (c) => {
        await lockExisting(c, name)
        await setDefault(c, name)
        await notify(c, { topic: 'catalog', key: name })
      })
    }
  }
}

export function createPgLayerStore (db: PgDatabase): LayerStore {
  const rows = createPgCatalogRowWriter()
  const one = async (q: Queryable, workspace: string, name: string, lock = '') =>
    (await q.query(`${LAYER_SELECT} WHERE l.workspace = $1 AND l.name = $2 ${lock}`, [workspace, name])).rows[0]
  return {
    async list (workspace) {
      const r = workspace
        ? await db.query(`${LAYER_SELECT} WHERE l.workspace = $1 ORDER BY l.name COLLATE "C"`, [workspace])
        : await db.query(`${LAYER_SELECT} ORDER BY l.workspace COLLATE "C", l.name COLLATE "C"`)
      return r.rows.map(layerFromRow)
    },
    async get (workspace, name) {
      const r = await one(db, workspace, name)
      return r ? layerFromRow(r) : undefined
    },
    async setStyles (workspace, name, defaultStyle, styles) {
      return await db.transaction(async (c) => {
        // Locked: a concurrent change of the same layer waits, so `before` is what this one replaced.
        const before = await one(c, workspace, name, 'FOR UPDATE OF l')
        if (!before) return undefined
        await rows.setLayerStyles(c, workspace, name, defaultStyle, styles)
        await notify(c, { topic: 'catalog', key: `${workspace}:${name}` })
        return { before: layerFromRow(before), after: layerFromRow(await one(c, workspace, name)) }
      })
    },
    async setAttribution (workspace, name, attribution) {
      return await db.transaction(async (c) => {
        const r = await c.query('UPDATE layers SET attribution = $1 WHERE workspace = $2 AND name = $3',
          [attribution === undefined ? null : JSON.stringify(attribution), workspace, name])
        if (r.rowCount !== 1) return false
        await notify(c, { topic: 'catalog', key: `${workspace}:${name}` })
        return true
      })
    }
  }
}

export function createPgLayerGroupStore (db: PgDatabase): LayerGroupStore {
  const key = 'COALESCE(workspace, \'\') = COALESCE($1, \'\') AND name = $2'
  const announce = (c: PgClient, g: { workspace?: string, name: string }) =>
    notify(c, { topic: 'catalog', key: g.workspace ? `${g.workspace}:${g.name}` : g.name })
  return {
    async list () {
      const r = await db.query<{ workspace: string | null, name: string, doc: string }>(
        'SELECT workspace, name, doc FROM layer_groups ORDER BY COALESCE(workspace, \'\') COLLATE "C", name COLLATE "C"')
      return r.rows.map(layerGroupFromRow)
    },
    async insert (g) {
      return await db.transaction(async (c) => {
        // The unique index on (COALESCE(workspace, ''), name): of two racing creates one inserts.
        const r = await c.query('INSERT INTO layer_groups (workspace, name, doc) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
          [g.workspace ?? null, g.name, layerGroupDoc(g)])
        if (r.rowCount !== 1) return false
        await announce(c, g)
        return true
      })
    },
    async update (g) {
      return await db.transaction(async (c) => {
        const r = await c.query(`UPDATE layer_groups SET doc = $3 WHERE ${key}`, [g.workspace ?? null, g.name, layerGroupDoc(g)])
        if (r.rowCount !== 1) return false
        await announce(c, g)
        return true
      })
    },
    async apply (changes) {
      await db.transaction(async (c) => {
        for (const g of changes.update) {
          await c.query(`UPDATE layer_groups SET doc = $3 WHERE ${key}`, [g.workspace ?? null, g.name, layerGroupDoc(g)])
          await announce(c, g)
        }
        for (const g of changes.remove) {
          await c.query(`DELETE FROM layer_groups WHERE ${key}`, [g.workspace ?? null, g.name])
          await announce(c, g)
        }
      })
    },
    async remove (workspace, name) {
      return await db.transaction(async (c) => {
        const r = await c.query(`DELETE FROM layer_groups WHERE ${key}`, [workspace ?? null, name])
        if (r.rowCount !== 1) return false
        await announce(c, { workspace, name })
        return true
      })
    }
  }
}
