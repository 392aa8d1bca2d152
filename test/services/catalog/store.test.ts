// The WorkspaceStore and LayerStore contract (services/catalog/store.ts), the same cases on SQLite
// and PostgreSQL: names equal under case folding refused, renames and removals of non-empty
// workspaces, layer lists and style assignment. On PostgreSQL also two nodes racing to create,
// rename and restyle, and the changes announced to other nodes.
import t from 'tap'
import { createSqliteLayerStore, createSqliteWorkspaceStore } from '../../../services/catalog/sqlite-store.js'
import { createPgLayerStore, createPgWorkspaceStore } from '../../../services/catalog/pg-store.js'
import type { LayerStore, WorkspaceStore } from '../../../services/catalog/store.js'
import type { LayerInfo } from '../../../services/catalog/layers.js'
import { addLayer, select } from '../../fixtures/catalog-rows.js'
import { BACKENDS, openBackend, openPg, outcomes, recordChanges, secondNode, type Opened } from '../../fixtures/backends.js'

const stores = (o: Opened): { workspaces: WorkspaceStore, layers: LayerStore } => o.backend === 'pg'
  ? { workspaces: createPgWorkspaceStore(o.db), layers: createPgLayerStore(o.db) }
  : { workspaces: createSqliteWorkspaceStore(o.db), layers: createSqliteLayerStore(o.db) }

const ws = (name: string, isolated = false) => ({ name, namespaceUri: `http://example.com/${name}`, isolated })

const RESOURCE = { srs: 'EPSG:4326', bbox: '[0,1,2,3]', config: '{"bands":1}' }

/** One published raster layer per name, each in a coverage store of its own name. */
const publish = async (o: Opened, workspace: string, names: string[]) => {
  for (const n of names) await addLayer(o, workspace, n, n, undefined, [], RESOURCE)
}

/** Both stores on `backend`, with workspaces (created by the store under test) and their layers. */
async function catalog (t: Parameters<typeof openBackend>[0], backend: Opened['backend'], content: Record<string, string[]>) {
  const o = await openBackend(t, backend)
  const s = stores(o)
  for (const [name, layers] of Object.entries(content)) {
    await s.workspaces.insert(ws(name))
    await publish(o, name, layers)
  }
  return s
}

const layer = (workspace: string, name: string, defaultStyle?: string, styles: string[] = []): LayerInfo => ({
  workspace, name, qualifiedName: `${workspace}:${name}`, type: 'RASTER', store: name, defaultStyle, styles, enabled: true, bbox: [0, 1, 2, 3], srs: 'EPSG:4326', config: { bands: 1 }
})

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('the default workspace is the first created, also among workspaces created in the same millisecond', async (t) => {
      const o = await openBackend(t, backend)
      const { workspaces } = stores(o)
      t.equal(await workspaces.defaultName(), undefined)
      for (const name of ['zz', 'b', 'a']) await workspaces.insert(ws(name))
      t.equal(await workspaces.defaultName(), 'zz')
      // Back to back on a fast disk they share a millisecond; ordered by name within one, 'a' won.
      await select(o, 'UPDATE workspaces SET created_at = $1', ['2026-11-27T21:00:00.000Z'])
      t.equal(await workspaces.defaultName(), 'zz', 'the same created_at: the first inserted')
      await workspaces.remove('zz', false)
      t.equal(await workspaces.defaultName(), 'b', 'the next created once the first is gone')
    })

    t.test('workspaces: insert, get, list in byte order; a name equal under case folding is refused', async (t) => {
      const { workspaces } = stores(await openBackend(t, backend))
      t.equal(await workspaces.insert(ws('topp')), true)
      t.equal(await workspaces.insert(ws('TOPP')), false)
      t.equal(await workspaces.insert(ws('Topp', true)), false)
      t.equal(await workspaces.insert(ws('straße')), true)
      t.equal(await workspaces.insert(ws('STRASSE')), false, 'full case folding: ß = SS')
      t.equal(await workspaces.insert(ws('Zeta', true)), true)
      t.same(await workspaces.list(), [ws('Zeta', true), ws('straße'), ws('topp')])
      t.same(await workspaces.get('topp'), ws('topp'))
      t.equal(await workspaces.get('TOPP'), undefined, 'get is exact')
    })

    t.test('workspaces: update and rename; a non-empty workspace keeps its name', async (t) => {
      const { workspaces, layers } = await catalog(t, backend, { topp: [], nurc: ['elevation'], sf: [] })
      await t.rejects(workspaces.update('ghost', ws('ghost')), { code: 'MW_CORE_WORKSPACE_NOT_FOUND' })
      await workspaces.update('nurc', { name: 'nurc', namespaceUri: 'urn:nurc', isolated: true })
      t.same(await workspaces.get('nurc'), { name: 'nurc', namespaceUri: 'urn:nurc', isolated: true }, 'a non-empty workspace may change all but its name')
      await t.rejects(workspaces.update('nurc', ws('nurc2')), { code: 'MW_CORE_WORKSPACE_NOT_EMPTY' })
      await t.rejects(workspaces.update('topp', ws('SF')), { code: 'MW_CORE_WORKSPACE_EXISTS' })
      await t.rejects(workspaces.update('topp', ws('sf')), { code: 'MW_CORE_WORKSPACE_EXISTS' })
      await workspaces.update('topp', ws('Topp'))
      t.equal(await workspaces.insert(ws('TOPP')), false, 'the case-only rename keeps the folded name taken')
      await workspaces.update('Topp', ws('tasmania'))
      t.equal(await workspaces.insert(ws('topp')), true, 'after a real rename the old name is free')
      t.same((await workspaces.list()).map((w) => w.name), ['nurc', 'sf', 'tasmania', 'topp'])
      t.same((await layers.list()).map((l) => l.qualifiedName), ['nurc:elevation'])
    })

    t.test('workspaces: remove, with its stores and layers only when asked to', async (t) => {
      const { workspaces, layers } = await catalog(t, backend, { nurc: ['elevation', 'slope'], sf: ['sfdem'] })
      await t.rejects(workspaces.remove('ghost', true), { code: 'MW_CORE_WORKSPACE_NOT_FOUND' })
      await t.rejects(workspaces.remove('nurc', false), { code: 'MW_CORE_WORKSPACE_NOT_EMPTY' })
      t.equal((await layers.list('nurc')).length, 2, 'refused: nothing removed')
      await workspaces.remove('nurc', true)
      t.equal(await workspaces.get('nurc'), undefined)
      t.same((await layers.list()).map((l) => l.qualifiedName), ['sf:sfdem'], 'its layers went with it')
      t.equal(await workspaces.insert(ws('NURC')), true, 'the name is free again')
      await workspaces.remove('NURC', false)
      t.same((await workspaces.list()).map((w) => w.name), ['sf'])
    })

    t.test('layers: list, get, and set styles returning the layer before and after', async (t) => {
      const { layers } = await catalog(t, backend, { sf: ['sfdem', 'Roads'], Nurc: ['elevation'] })
      t.same(await layers.list(), [layer('Nurc', 'elevation'), layer('sf', 'Roads'), layer('sf', 'sfdem')], 'by workspace, then name, in byte order')
      t.same(await layers.list('sf'), [layer('sf', 'Roads'), layer('sf', 'sfdem')])
      t.same(await layers.list('ghost'), [])
      t.same(await layers.get('sf', 'Roads'), layer('sf', 'Roads'))
      t.equal(await layers.get('sf', 'roads'), undefined)
      t.same(await layers.setStyles('sf', 'Roads', 'line', ['line', 'dashed']), {
        before: layer('sf', 'Roads'),
        after: layer('sf', 'Roads', 'line', ['line', 'dashed'])
      })
      t.same(await layers.setStyles('sf', 'Roads', undefined, []), {
        before: layer('sf', 'Roads', 'line', ['line', 'dashed']),
        after: layer('sf', 'Roads')
      })
      t.equal(await layers.setStyles('sf', 'ghost', 'line', []), undefined)
    })

    if (backend === 'pg') {
      t.test('two nodes creating names equal under case folding at once: exactly one is created', async (t) => {
        const o = await openPg(t)
        const a = createPgWorkspaceStore(o.db)
        const b = createPgWorkspaceStore(secondNode(t, o.url))
        const pairs = [['Topp', 'topp'], ['straße', 'STRASSE'], ['nurc', 'nurc'], ['ÄRGER', 'ärger'], ['sf', 'SF']]
        for (const [x, y] of pairs) {
          const { ok, failed } = await outcomes([a.insert(ws(x)), b.insert(ws(y))])
          t.same(failed, [], `${x} / ${y}: no error`)
          t.same(ok.sort(), [false, true], `${x} / ${y}: one created`)
        }
        t.equal((await a.list()).length, pairs.length)
      })

      t.test('two nodes renaming workspaces to names equal under case folding at once: one is refused', async (t) => {
        const o = await openPg(t)
        const a = createPgWorkspaceStore(o.db)
        const b = createPgWorkspaceStore(secondNode(t, o.url))
        for (let round = 0; round < 4; round++) {
          await o.db.query('DELETE FROM workspaces')
          await a.insert(ws('one'))
          await a.insert(ws('two'))
          const { ok, failed } = await outcomes([a.update('one', ws('Same')), b.update('two', ws('SAME'))])
          t.equal(ok.length, 1, `round ${round}: one renamed`)
          t.same(failed, ['MW_CORE_WORKSPACE_EXISTS'], `round ${round}: the other refused`)
          t.equal((await a.list()).length, 2)
        }
      })

      t.test('two nodes setting one layer\'s styles at once: each sees the state the other left, as one after the other', async (t) => {
        const o = await openPg(t)
        await createPgWorkspaceStore(o.db).insert(ws('sf'))
        await publish(o, 'sf', ['sfdem'])
        const a = createPgLayerStore(o.db)
        const b = createPgLayerStore(secondNode(t, o.url))
        const [ra, rb] = await Promise.all([a.setStyles('sf', 'sfdem', 'a', ['a']), b.setStyles('sf', 'sfdem', 'b', ['b'])])
        const [first, second] = ra?.before.defaultStyle === undefined ? [ra, rb] : [rb, ra]
        t.same(first?.before, layer('sf', 'sfdem'), 'the first replaced the original')
        t.same(second?.before, first?.after, 'the second replaced what the first set')
        t.same(await a.get('sf', 'sfdem'), second?.after)
      })

      t.test('writes announce "catalog" to other nodes; refused ones nothing', async (t) => {
        const o = await openPg(t)
        const { workspaces, layers } = stores(o)
        const changes = await recordChanges(t, o.url, o.db)
        await workspaces.insert(ws('sf'))
        await workspaces.insert(ws('SF'))
        await workspaces.insert(ws('topp'))
        await workspaces.update('topp', ws('tasmania'))
        await workspaces.update('tasmania', ws('tasmania', true))
        await publish(o, 'sf', ['sfdem'])
        await t.rejects(workspaces.remove('sf', false), { code: 'MW_CORE_WORKSPACE_NOT_EMPTY' })
        await layers.setStyles('sf', 'sfdem', 'dem', ['dem'])
        await layers.setStyles('sf', 'ghost', 'dem', ['dem'])
        await workspaces.remove('tasmania', false)
        t.same(await changes.settle(), [
          { topic: 'catalog', key: 'sf' },
          { topic: 'catalog', key: 'topp' },
          { topic: 'catalog', key: 'topp' },
          { topic: 'catalog', key: 'tasmania' },
          { topic: 'catalog', key: 'tasmania' },
          { topic: 'catalog', key: 'sf:sfdem' },
          { topic: 'catalog', key: 'tasmania' }
        ])
      })
    }
  })
}
