import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { tempDir } from '../../helper.js'
import { openDatabase } from '../../../services/storage/sqlite/database.js'
import { createStyleService } from '../../../services/styles/service.js'
import { createSqliteStyleStore } from '../../../services/styles/sqlite-store.js'

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'test', 'fixtures', 'styles')
const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name), 'utf8')

function service (t: Parameters<typeof tempDir>[0]) {
  const dataDir = tempDir(t)
  fs.mkdirSync(path.join(dataDir, 'tmp'))
  const db = openDatabase(dataDir)
  t.teardown(() => db.close())
  return { dataDir, db, styles: createStyleService({ store: createSqliteStyleStore(db), dataDir, zipLimits: { maxEntries: 100, maxBytes: 1e6 } }) }
}

const files = (dir: string) => fs.readdirSync(dir).sort()

t.test('a revision file left by a crash before the catalog switch is invisible and replaced by the next write', async (t) => {
  const { dataDir, styles } = service(t)
  await styles.createFromSld(undefined, fixture('rain.sld'))
  const dir = path.join(dataDir, 'styles')
  fs.writeFileSync(path.join(dir, 'rain~2.sld'), '<half-writ') // the new file was written, the switch never happened
  t.equal(await styles.sld(undefined, 'rain'), fixture('rain.sld'), 'the catalog still points at the whole old version')
  await styles.replaceSld(undefined, 'rain', fixture('dem.sld'))
  t.equal(await styles.sld(undefined, 'rain'), fixture('dem.sld'))
  t.same(files(dir), ['rain~2.sld'])
})

t.test('concurrent PUTs of one style end with one whole body whose metadata matches, no temp files', async (t) => {
  const { dataDir, styles } = service(t)
  await styles.createFromSld(undefined, fixture('rain.sld'))
  const bodies = [fixture('dem.sld'), fixture('classes-se.sld')]
  for (let round = 0; round < 20; round++) {
    await Promise.all(bodies.map((b) => styles.replaceSld(undefined, 'rain', b)))
    const text = await styles.sld(undefined, 'rain')
    t.ok(bodies.includes(text))
    t.equal((await styles.get(undefined, 'rain')).languageVersion, text === bodies[1] ? '1.1.0' : '1.0.0')
  }
  t.equal(files(path.join(dataDir, 'styles')).length, 1, 'one live file, no temp files')
})

t.test('concurrent DELETE and PUT end with the style absent, or present and whole', async (t) => {
  const { dataDir, styles } = service(t)
  for (let round = 0; round < 10; round++) {
    await styles.createFromSld(undefined, fixture('rain.sld'))
    await Promise.allSettled([styles.remove(undefined, 'rain', { purge: true }), styles.replaceSld(undefined, 'rain', fixture('dem.sld'))])
    const s = await styles.find(undefined, 'rain')
    if (s) {
      t.equal(await styles.sld(undefined, 'rain'), fixture('dem.sld'))
      await styles.remove(undefined, 'rain', { purge: true })
    }
    t.same(files(path.join(dataDir, 'styles')), [], 'no file without an entry')
  }
})

t.test('a catalog entry adopts an SLD file already in the folder', async (t) => {
  const { dataDir, styles } = service(t)
  fs.mkdirSync(path.join(dataDir, 'styles'))
  fs.writeFileSync(path.join(dataDir, 'styles', 'legacy.sld'), fixture('classes-se.sld'))
  const s = await styles.createEntry(undefined, { name: 'legacy' })
  t.equal(s.file, 'legacy.sld')
  t.equal(s.languageVersion, '1.1.0')
  t.equal((await styles.rasterStyleFor(undefined, 'legacy'))?.colorMap?.type, 'intervals')
})
