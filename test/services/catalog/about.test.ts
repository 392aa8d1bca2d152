// about/status and about/manifest read mapwarden's own package.json once; a failed read is not
// kept: the next request (by either path) reads it again rather than failing forever.
import t from 'tap'
import { createAbout } from '../../../services/catalog/about.js'
import { tempDir } from '../../helper.js'

t.test('a failed read of the package is retried by the next request, from manifest and from status', async (t) => {
  const root = tempDir(t)
  let calls = 0
  let failing = true
  const about = createAbout({
    backend: 'SQLite',
    ping: async () => {},
    databaseVersion: async () => '3.45.0',
    renderThreads: 1,
    renderQueue: () => ({ running: 0, interactive: 0, seed: 0 }),
    seedTasks: async () => ({ pending: 0, running: 0 }),
    ownPackage: async () => {
      calls++
      if (failing) throw new Error('EMFILE: too many open files')
      return { root, pkg: { name: 'mapwarden', version: '9.8.7' } }
    }
  })
  await t.rejects(about.manifest({}), /EMFILE/)
  failing = true
  await t.rejects(about.status(), /EMFILE/, 'the read is tried again, and fails again')
  failing = false
  const status = await about.status()
  t.equal(status[0].version, '9.8.7', 'status reads the package once it can')
  t.same((await about.manifest({}))[0], { name: 'mapwarden', entries: { Version: '9.8.7', GeoServerModule: 'core', 'Implementation-Title': 'mapwarden' } })
  const before = calls
  await about.status()
  await about.manifest({})
  t.equal(calls, before, 'a successful read is kept')
})
