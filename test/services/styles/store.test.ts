// The StyleStore contract, the same cases on SQLite and PostgreSQL (sqlite-store.ts, pg-store.ts),
// then what only several PostgreSQL nodes can do: create styles at the same moment, and hear of
// each other's changes.
import t from 'tap'
import { BACKENDS, openBackend, outcomes, recordChanges, secondNode, type Opened } from '../../fixtures/backends.js'
import { addLayer, addWorkspace, select } from '../../fixtures/catalog-rows.js'
import { createSqliteStyleStore } from '../../../services/styles/sqlite-store.js'
import { createPgStyleStore } from '../../../services/styles/pg-store.js'
import type { NewStyleRow, StyleStore } from '../../../services/styles/store.js'
import type { PgDatabase } from '../../../services/storage/pg/database.js'

const storeOf = (o: Opened): StyleStore => o.backend === 'pg' ? createPgStyleStore(o.db) : createSqliteStyleStore(o.db)

const style = (name: string, more: Partial<NewStyleRow> = {}): NewStyleRow => ({
  name, format: 'sld', languageVersion: '1.0.0', filename: `${name}.sld`, file: `${name}.sld`, revision: 1, images: [], ...more
})

const layerStyles = async (o: Opened, ws: string, name: string) =>
  (await select(o, 'SELECT default_style, styles FROM layers WHERE workspace = $1 AND name = $2', [ws, name]))
    .map((r) => ({ defaultStyle: r.default_style ?? undefined, styles: JSON.parse(r.styles) }))[0]

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('rows read back as written; names sorted by code point, per folder', async (t) => {
      const o = await openBackend(t, backend)
      const styles = storeOf(o)
      await addWorkspace(o, 'topp')
      t.equal(await styles.workspaceExists('topp'), true)
      t.equal(await styles.workspaceExists('nowhere'), false)
      const images = [{ name: 'arrow.png', file: 'packages/p1/arrow.png' }]
      const id = await styles.insert(style('rain', { languageVersion: '1.1.0', images, revision: 3, file: 'rain~3.sld' }))
      for (const name of ['Zulu', 'ärger', 'alpha']) await styles.insert(style(name))
      await styles.insert(style('rain', { workspace: 'topp' }))
      await styles.insert(style('entry', { workspace: 'topp', file: undefined, revision: 0 }))

      const rain = await styles.get(undefined, 'rain')
      t.match(rain, { id, workspace: undefined, name: 'rain', format: 'sld', languageVersion: '1.1.0', filename: 'rain.sld', file: 'rain~3.sld', revision: 3, images })
      t.ok(rain!.createdAt <= rain!.modifiedAt && /^\d{4}-\d\d-\d\dT/.test(rain!.createdAt))
      t.same(await styles.names(), ['Zulu', 'alpha', 'rain', 'ärger'])
      t.same(await styles.names('topp'), ['entry', 'rain'])
      t.not((await styles.get('topp', 'rain'))!.id, id, 'a workspace style of the same name is another style')
      t.equal((await styles.get('topp', 'entry'))!.file, undefined, 'an entry without content')
      t.equal(await styles.get(undefined, 'RAIN'), undefined, 'get is exact')
      t.equal((await styles.getFolded(undefined, 'RAIN'))!.id, id)
      t.equal((await styles.getFolded(undefined, 'ÄRGER'))!.name, 'ärger')
      t.equal((await styles.byFilenameFolded(undefined, 'Rain.SLD'))!.id, id)
      t.equal(await styles.getFolded('topp', 'alpha'), undefined, 'folders are apart')
    })

    t.test('a name or file name that folds like another style\'s in the folder is refused, atomically', async (t) => {
      const o = await openBackend(t, backend)
      const styles = storeOf(o)
      await addWorkspace(o, 'topp')
      await styles.insert(style('straße'))
      const [intent] = await styles.addIntents(undefined, ['STRASSE.sld'])
      await t.rejects(styles.insert(style('STRASSE'), [intent]), { code: 'MW_STYLES_EXISTS', message: 'Style STRASSE (as straße) already exists.' })
      t.same((await styles.intents()).map((i) => i.id), [intent], 'the refused insert settled nothing')
      await t.rejects(styles.insert(style('straße')), { code: 'MW_STYLES_EXISTS', message: 'Style straße already exists.' })
      await t.rejects(styles.insert(style('other', { filename: 'Straße.SLD' })), { code: 'MW_STYLES_RESOURCE_EXISTS', message: 'Style resource Straße.SLD (as straße.sld) already exists.' })
      await styles.insert(style('STRASSE', { workspace: 'topp' }))
      t.same(await styles.names(), ['straße'])
      t.same(await styles.names('topp'), ['STRASSE'])

      // Rename onto another style's name: nothing of the switch is written.
      await addLayer(o, 'topp', 'dem', 'dem', 'topp:STRASSE', ['topp:STRASSE'])
      const moved = (await styles.get('topp', 'STRASSE'))!
      await t.rejects(styles.update({ ...moved, workspace: undefined, filename: 'moved.sld' }, {
        layers: [{ workspace: 'topp', name: 'dem', defaultStyle: 'STRASSE', styles: ['STRASSE'] }], stale: { workspace: 'topp', files: ['STRASSE.sld'] }
      }), { code: 'MW_STYLES_EXISTS' })
      t.same(await layerStyles(o, 'topp', 'dem'), { defaultStyle: 'topp:STRASSE', styles: ['topp:STRASSE'] })
      t.same((await styles.intents()).map((i) => i.id), [intent])
      t.equal((await styles.get('topp', 'STRASSE'))!.filename, 'STRASSE.sld')
      // Its own name in other case is its own.
      await styles.update({ ...moved, name: 'Strasse', filename: 'Strasse.sld' })
      t.same(await styles.names('topp'), ['Strasse'])
    })

    t.test('a switch writes the row, the layers, the settled and the stale intents in one unit', async (t) => {
      const o = await openBackend(t, backend)
      const styles = storeOf(o)
      await addWorkspace(o, 'topp')
      const id = await styles.insert(style('rain', { workspace: 'topp' }))
      await addLayer(o, 'topp', 's1', 'dem', 'topp:rain', ['raster', 'rain'])
      await addLayer(o, 'topp', 's2', 'hill', undefined, ['topp:rain'])
      await addLayer(o, 'topp', 's3', 'other', 'raster', [])
      const refs = await styles.layersNaming('topp:rain', 'rain')
      t.same(refs, [
        { workspace: 'topp', name: 'dem', defaultStyle: 'topp:rain', styles: ['raster', 'rain'] },
        { workspace: 'topp', name: 'hill', defaultStyle: undefined, styles: ['topp:rain'] }
      ])

      const settled = await styles.addIntents('topp', ['rain~2.sld'])
      const s = (await styles.get('topp', 'rain'))!
      const stale = await styles.update({ ...s, name: 'drizzle', file: 'rain~2.sld', revision: 2 }, {
        layers: refs.map((l) => ({ ...l, defaultStyle: l.defaultStyle && 'topp:drizzle', styles: l.styles.map((r) => r === 'raster' ? r : 'topp:drizzle') })),
        settled,
        stale: { workspace: 'topp', files: ['rain.sld'], backupTo: 'rain.sld.bak' }
      })
      t.match(await styles.get('topp', 'drizzle'), { id, name: 'drizzle', file: 'rain~2.sld', revision: 2, filename: 'rain.sld' })
      t.equal(await styles.get('topp', 'rain'), undefined)
      t.same(await layerStyles(o, 'topp', 'dem'), { defaultStyle: 'topp:drizzle', styles: ['raster', 'topp:drizzle'] })
      t.same(await layerStyles(o, 'topp', 'hill'), { defaultStyle: undefined, styles: ['topp:drizzle'] })
      t.same(await styles.intents(), [{ id: stale[0], workspace: 'topp', file: 'rain.sld', backupTo: 'rain.sld.bak' }])

      const gone = await styles.remove(id, {
        layers: [{ workspace: 'topp', name: 'dem', defaultStyle: undefined, styles: ['raster'] }],
        settled: stale,
        stale: { workspace: 'topp', files: ['rain~2.sld'] }
      })
      t.equal(await styles.get('topp', 'drizzle'), undefined)
      t.same(await layerStyles(o, 'topp', 'dem'), { defaultStyle: undefined, styles: ['raster'] })
      t.same(await styles.intents(), [{ id: gone[0], workspace: 'topp', file: 'rain~2.sld', backupTo: undefined }])
      await styles.clearIntents(gone)
      t.same(await styles.intents(), [])
    })

    t.test('image users and referenced files, in the folder of the style', async (t) => {
      const o = await openBackend(t, backend)
      const styles = storeOf(o)
      await addWorkspace(o, 'topp')
      const a = await styles.insert(style('a', { images: [{ name: 'arrow.png', file: 'arrow.png' }, { name: 'dot.png', file: 'dot.png' }] }))
      const b = await styles.insert(style('b', { file: 'packages/x/b.sld', images: [{ name: 'arrow.png', file: 'packages/x/arrow.png' }, { name: 'dot.png', file: 'dot.png' }] }))
      await styles.insert(style('a', { workspace: 'topp', images: [{ name: 'arrow.png', file: 'arrow.png' }] }))
      t.same(await styles.imageUsers(undefined, 'dot.png'), [a, b])
      t.same(await styles.imageUsers(undefined, 'arrow.png'), [a])
      t.same(await styles.imageUsers(undefined, 'packages/x/arrow.png'), [b])
      t.same(await styles.imageUsers(undefined, 'a.sld'), [], 'an SLD is no image')
      t.equal(await styles.referenced(undefined, 'packages/x/b.sld'), true)
      t.equal(await styles.referenced(undefined, 'packages/x/arrow.png'), true)
      t.equal(await styles.referenced(undefined, 'b.sld'), false)
      t.equal(await styles.referenced('topp', 'dot.png'), false)
      t.equal(await styles.referenced('topp', 'arrow.png'), true)
    })

    t.test('intents: listed in the order recorded, cleared by id', async (t) => {
      const o = await openBackend(t, backend)
      const styles = storeOf(o)
      const first = await styles.addIntents(undefined, ['x.sld', 'y.png'])
      const second = await styles.addIntents('topp', ['z.sld'], 'z.sld.bak')
      t.equal(new Set([...first, ...second]).size, 3)
      t.same(await styles.intents(), [
        { id: first[0], workspace: undefined, file: 'x.sld', backupTo: undefined },
        { id: first[1], workspace: undefined, file: 'y.png', backupTo: undefined },
        { id: second[0], workspace: 'topp', file: 'z.sld', backupTo: 'z.sld.bak' }
      ])
      await styles.clearIntents([first[1], second[0]])
      t.same((await styles.intents()).map((i) => i.file), ['x.sld'])
      const id = await styles.insert(style('x'), [first[0]])
      t.same(await styles.intents(), [], 'the insert settled it')
      t.equal((await styles.get(undefined, 'x'))!.id, id)
    })
  })
}

t.test('pg: two nodes creating styles whose names differ only in case at once: one wins, the other is refused', async (t) => {
  const o = await openBackend(t, 'pg') as Extract<Opened, { backend: 'pg' }>
  const nodes = [createPgStyleStore(o.db), createPgStyleStore(secondNode(t, o.url))]
  for (let round = 0; round < 20; round++) {
    const names = [`Roads${round}`, `ROADS${round}`]
    const { ok, failed } = await outcomes(names.map((name, i) => nodes[i].insert(style(name))))
    t.equal(ok.length, 1, `round ${round}: one insert succeeded`)
    t.same(failed, ['MW_STYLES_EXISTS'], 'the other is refused as a check before the write refuses it')
    const rows = await select(o, 'SELECT id, name FROM styles WHERE name_key = $1', [`roads${round}`])
    t.same(rows.map((r) => r.id), ok, 'exactly the winner exists')
    // File names alone clash too.
    const files = await outcomes([nodes[0].insert(style(`f${round}`, { filename: `F${round}.sld` })), nodes[1].insert(style(`g${round}`, { filename: `f${round}.SLD` }))])
    t.equal(files.ok.length, 1)
    t.same(files.failed, ['MW_STYLES_RESOURCE_EXISTS'])
  }
})

t.test('pg: two nodes renaming two styles to names that fold the same: one rename wins', async (t) => {
  const o = await openBackend(t, 'pg') as Extract<Opened, { backend: 'pg' }>
  const nodes = [createPgStyleStore(o.db), createPgStyleStore(secondNode(t, o.url))]
  for (let round = 0; round < 10; round++) {
    const ids = [await nodes[0].insert(style(`a${round}`)), await nodes[0].insert(style(`b${round}`))]
    const rows = await Promise.all(ids.map(async (_, i) => (await nodes[0].get(undefined, i === 0 ? `a${round}` : `b${round}`))!))
    const { ok, failed } = await outcomes(rows.map((s, i) => nodes[i].update({ ...s, name: i === 0 ? `Same${round}` : `SAME${round}` })))
    t.equal(ok.length, 1)
    t.same(failed, ['MW_STYLES_EXISTS'])
    t.equal((await select(o, 'SELECT count(*)::int AS n FROM styles WHERE name_key = $1', [`same${round}`]))[0].n, 1)
  }
})

t.test('pg: style writes are announced on commit, a refused one not at all', async (t) => {
  const o = await openBackend(t, 'pg') as Extract<Opened, { backend: 'pg' }>
  const db: PgDatabase = o.db
  const styles = createPgStyleStore(db)
  const changes = await recordChanges(t, o.url, db)
  await addWorkspace(o, 'topp')
  await addLayer(o, 'topp', 'dem', 'dem', 'rain', [])
  await changes.settle()
  const id = await styles.insert(style('rain'))
  await t.rejects(styles.insert(style('RAIN')), { code: 'MW_STYLES_EXISTS' })
  await styles.addIntents(undefined, ['x.sld'])
  t.same(await changes.settle(), [{ topic: 'styles', key: 'rain' }], 'the insert, nothing of the refused one or of the intents')
  const s = (await styles.get(undefined, 'rain'))!
  await styles.update({ ...s, workspace: 'topp' }, { layers: [{ workspace: 'topp', name: 'dem', defaultStyle: 'topp:rain', styles: [] }] })
  t.same(await changes.settle(), [{ topic: 'catalog', key: 'topp:dem' }, { topic: 'styles', key: 'rain' }, { topic: 'styles', key: 'topp:rain' }])
  await styles.remove(id)
  t.same(await changes.settle(), [{ topic: 'styles', key: 'topp:rain' }])
})
