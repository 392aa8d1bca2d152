// {base}/rest/about/manifest, about/status and rest/fonts: GeoServer's shapes (about/resource with a
// name attribute, statuss/status, root/fonts/entry and {"fonts":[...]}), the manifest filters as
// GeoServer applies them, the packages actually installed, and the fonts fontconfig lists.
import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import { spawnSync } from 'node:child_process'
import { build, ADMIN, BASE, TEST_BACKEND } from '../../helper.js'
import { createFontList, parseFamilies } from '../../../services/render/fonts.js'
import { METRIC_NAMES } from '../../../services/catalog/system-status.js'

const REST = `${BASE}/rest`
const installed = (name: string) => (JSON.parse(fs.readFileSync(new URL(`../../../../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version: string }).version

t.test('about/manifest: mapwarden and the npm packages installed, with their versions; GeoServer\'s filters', async (t) => {
  const app = await build(t)
  let res = await app.inject({ url: `${REST}/about/manifest.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  const all = res.json().about.resource as Array<Record<string, string>>
  const names = all.map((r) => r['@name'])
  t.same(names, [...names].sort((a, b) => a < b ? -1 : a > b ? 1 : 0), 'sorted by name')
  t.same(all.find((r) => r['@name'] === 'mapwarden'), { '@name': 'mapwarden', Version: JSON.parse(fs.readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')).version, GeoServerModule: 'core', 'Implementation-Title': 'mapwarden' })
  for (const name of ['fastify', 'pg', 'sharp', 'piscina']) {
    const r = all.find((x) => x['@name'] === name)
    t.ok(r, name)
    t.equal(r?.Version, installed(name), `${name}: the installed version`)
    t.equal(r?.['Dependency-Type'], 'direct', name)
  }
  t.ok(all.some((r) => r['Dependency-Type'] === 'transitive'), 'transitive packages too')
  t.ok(all.some((r) => r['@name'].startsWith('@')), 'scoped packages too')

  // manifest: the name matches the regular expression whole (Java's String.matches).
  res = await app.inject({ url: `${REST}/about/manifest.xml?manifest=fastify|pg`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, [
    '<about>',
    '  <resource name="fastify">',
    `    <Version>${installed('fastify')}</Version>`,
    '    <License>MIT</License>',
    '    <Description>Fast and low overhead web framework, for Node.js</Description>',
    '    <Dependency-Type>direct</Dependency-Type>',
    '  </resource>',
    '  <resource name="pg">',
    `    <Version>${installed('pg')}</Version>`,
    '    <License>MIT</License>',
    '    <Description>PostgreSQL client - pure javascript &amp; libpq with the same API</Description>',
    '    <Dependency-Type>direct</Dependency-Type>',
    '  </resource>',
    '</about>'
  ].join('\n'))
  // key and value: one attribute whose name matches key has a value matching value.
  res = await app.inject({ url: `${REST}/about/manifest.json?key=GeoServerModule&value=core`, headers: ADMIN })
  t.same(res.json().about.resource.map((r: Record<string, string>) => r['@name']), ['mapwarden'])
  res = await app.inject({ url: `${REST}/about/manifest.json?manifest=fastify.*&key=Dependency-Type&value=direct`, headers: ADMIN })
  t.same(res.json().about.resource.map((r: Record<string, string>) => r['@name']), ['fastify', 'fastify-plugin'])
  res = await app.inject({ url: `${REST}/about/manifest.json?value=${encodeURIComponent(installed('fastify').replace(/\./g, '\\.'))}&manifest=fastify`, headers: ADMIN })
  t.equal(res.json().about.resource.length, 1, 'value alone')
  // from and to: names in the range, both included.
  res = await app.inject({ url: `${REST}/about/manifest.json?from=pg&to=pg-pool`, headers: ADMIN })
  const range = res.json().about.resource.map((r: Record<string, string>) => r['@name']) as string[]
  t.equal(range[0], 'pg')
  t.equal(range.at(-1), 'pg-pool')
  // Nothing matches: an empty list.
  res = await app.inject({ url: `${REST}/about/manifest.json?manifest=no-such-package`, headers: ADMIN })
  t.equal(res.body, '{"about":""}')
  res = await app.inject({ url: `${REST}/about/manifest.xml?manifest=no-such-package`, headers: ADMIN })
  t.equal(res.body, '<about/>')

  res = await app.inject({ url: `${REST}/about/manifest.json?manifest=(`, headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.match(res.body, /^manifest is not a valid regular expression: /)
  res = await app.inject({ url: `${REST}/about/manifest.json?key=${'a'.repeat(300)}`, headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'key is longer than 256 characters')
  res = await app.inject({ method: 'POST', url: `${REST}/about/manifest`, headers: ADMIN })
  t.equal(res.statusCode, 405)
  res = await app.inject({ url: `${REST}/about/manifest.json` })
  t.equal(res.statusCode, 401)
})

t.test('about/system-status: GeoServer\'s system metrics, read from this machine, as MonitorRest writes them', async (t) => {
  const app = await build(t)
  // MonitorRest produces {JSON, XML, HTML}: no suffix and no Accept answers JSON.
  let res = await app.inject({ url: `${REST}/about/system-status`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  const metrics = res.json().metrics.metric as Array<Record<string, unknown>>
  t.same([...new Set(metrics.map((m) => m.name))], METRIC_NAMES, 'every MetricInfo, in GeoServer\'s order')
  for (const m of metrics) {
    t.same(Object.keys(m), ['available', 'description', 'name', 'unit', 'category', 'identifier', 'priority', 'value'], `${String(m.name)}: MetricValue's fields`)
    t.type(m.value, 'string')
    if (m.available === false) t.equal(m.value, 'NOT AVAILABLE')
  }
  const one = (name: string) => metrics.find((m) => m.name === name)!
  t.same(one('OPERATING_SYSTEM'), { available: true, description: 'Operating system', name: 'OPERATING_SYSTEM', unit: '', category: 'SYSTEM', identifier: 'OPERATING_SYSTEM', priority: 1, value: `${os.type()} ${os.release()}` })
  t.equal(one('LOGICAL_CPUS').value, String(os.cpus().length))
  t.equal(one('MEMORY_TOTAL').value, String(os.totalmem()))
  t.match(one('MEMORY_TOTAL'), { unit: 'bytes', category: 'MEMORY', priority: 201 })
  const used = Number(one('MEMORY_USED').value)
  t.ok(used > 0 && used < 100, `memory used ${used} %`)
  const uptime = Number(one('SYSTEM_UPTIME').value)
  t.ok(Number.isInteger(uptime) && Math.abs(uptime - os.uptime()) < 60, 'uptime in seconds, the system\'s')
  const perCpu = metrics.filter((m) => m.name === 'PER_CPU_LOAD')
  t.same(perCpu.map((m) => m.identifier), os.cpus().map((_c, i) => `CPU ${i + 1}`), 'one load per CPU, as OSHISystemInfoCollector names them')
  t.same(perCpu.map((m) => m.priority), os.cpus().map((_c, i) => 105 + i))
  const stat = fs.statfsSync(app.config.dataDir)
  t.same(one('PARTITION_TOTAL'), { available: true, description: 'Partition [data directory] total space', name: 'PARTITION_TOTAL', unit: 'bytes', category: 'FILE_SYSTEM', identifier: 'data directory', priority: 504, value: String(stat.blocks * stat.bsize) })
  t.match(one('VOLTAGE'), { available: false, value: 'NOT AVAILABLE', unit: 'V', category: 'SENSORS' })
  if (process.platform === 'linux') {
    t.ok(Number(one('GEOSERVER_THREADS').value) >= 1, 'this process\'s threads')
    t.equal(one('SWAP_TOTAL').available, true)
  }
  const heap = Number(one('GEOSERVER_JVM_MEMORY_USAGE').value)
  t.ok(heap > 0 && heap < 100, 'the share of the JavaScript heap limit in use')

  res = await app.inject({ url: `${REST}/about/system-status.xml`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/xml')
  t.match(res.body, new RegExp(`^<metrics>\n {2}<metric>\n {4}<available>true</available>\n {4}<description>Operating system</description>\n {4}<name>OPERATING_SYSTEM</name>\n {4}<unit></unit>|<unit/>`))
  t.match(res.body, /<name>SYSTEM_UPTIME<\/name>\n {4}<unit>sec<\/unit>\n {4}<category>SYSTEM<\/category>\n {4}<identifier>SYSTEM_UPTIME<\/identifier>\n {4}<priority>2<\/priority>\n {4}<value>\d+<\/value>/)
  res = await app.inject({ url: `${REST}/about/system-status.json`, headers: { ...ADMIN, accept: 'application/xml' } })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8', 'the suffix wins')
  res = await app.inject({ method: 'PUT', url: `${REST}/about/system-status`, headers: ADMIN })
  t.equal(res.statusCode, 405)
  res = await app.inject({ url: `${REST}/about/system-status.json` })
  t.equal(res.statusCode, 401)
})

t.test('about/status: one entry per component of mapwarden, in GeoServer\'s statuss/status shape', async (t) => {
  const app = await build(t)
  let res = await app.inject({ url: `${REST}/about/status.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  const list = res.json().statuss.status as Array<Record<string, unknown>>
  const modules = list.map((s) => s.module)
  t.same(modules, TEST_BACKEND === 'pg' ? ['mw-catalog', 'mw-render', 'mw-tilecache', 'mw-postgresql'] : ['mw-catalog', 'mw-render', 'mw-tilecache'])
  for (const s of list) {
    t.same(Object.keys(s), ['module', 'name', 'component', 'version', 'isEnabled', 'isAvailable', 'message'], `${s.module}: GeoServer's fields`)
    t.equal(s.isEnabled, true)
    t.equal(s.isAvailable, true, `${s.module} available`)
  }
  const catalog = list[0]
  if (TEST_BACKEND === 'pg') {
    t.equal(catalog.component, 'PostgreSQL catalog')
    const version = String(list[3].version)
    t.match(version, /^\d+(\.\d+)?/, 'the PostgreSQL server\'s version')
    t.equal(list[3].message, `PostgreSQL ${version}`)
  } else {
    t.equal(catalog.component, 'SQLite catalog')
    t.match(catalog.message, /^Embedded SQLite 3\.\d+\.\d+ catalog in the data directory$/)
  }
  t.equal(list[1].message, `${app.config.workerThreads} render threads; 0 renders running, 0 on-demand and 0 seeding renders waiting`)
  t.equal(list[2].message, 'Blob store in the data directory; seed tasks: 0 running, 0 pending')

  res = await app.inject({ url: `${REST}/about/status.xml`, headers: ADMIN })
  t.match(res.body, /^<statuss>\n {2}<status>\n {4}<module>mw-catalog<\/module>\n {4}<name>mapwarden catalog<\/name>\n/)
  res = await app.inject({ url: `${REST}/about/status/mw-render.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: list[1] })
  res = await app.inject({ url: `${REST}/about/status/mw-render.xml`, headers: ADMIN })
  t.match(res.body, /^<status>\n {2}<module>mw-render<\/module>/)
  res = await app.inject({ url: `${REST}/about/status/gs-main`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No such module: gs-main')
  res = await app.inject({ method: 'PUT', url: `${REST}/about/status`, headers: ADMIN })
  t.equal(res.statusCode, 405)
})

t.test('rest/fonts: the families fontconfig lists, in GeoServer\'s XML and JSON', async (t) => {
  const app = await build(t)
  const fc = spawnSync('fc-list', [':', 'family'], { encoding: 'utf8' })
  // What the renderer's fontconfig finds, read here on its own.
  const expected = fc.status === 0 ? [...new Set(fc.stdout.split('\n').flatMap((l) => l.split(',')).map((s) => s.trim()).filter((s) => s !== ''))].sort((a, b) => a.localeCompare(b, 'en')) : []
  let res = await app.inject({ url: `${REST}/fonts.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.same(res.json(), { fonts: expected })
  res = await app.inject({ url: `${REST}/fonts.xml`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, expected.length === 0 ? '<root>\n  <fonts/>\n</root>' : ['<root>', '  <fonts>', ...expected.map((f) => `    <entry>${f}</entry>`), '  </fonts>', '</root>'].join('\n'))
  res = await app.inject({ url: `${REST}/fonts`, headers: { ...ADMIN, accept: 'application/json' } })
  t.same(res.json(), { fonts: expected })
  // FontListController produces {JSON, XML}: no Accept, or */*, answers JSON.
  res = await app.inject({ url: `${REST}/fonts`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8', 'JSON by default, as GeoServer')
  t.same(res.json(), { fonts: expected })
  res = await app.inject({ url: `${REST}/fonts`, headers: { ...ADMIN, accept: '*/*' } })
  t.same(res.json(), { fonts: expected })
  res = await app.inject({ url: `${REST}/fonts`, headers: { ...ADMIN, accept: 'text/xml, */*;q=0.5' } })
  t.equal(res.headers['content-type'], 'application/xml')
  for (const method of ['POST', 'PUT', 'DELETE'] as const) {
    res = await app.inject({ method, url: `${REST}/fonts`, headers: ADMIN })
    t.equal(res.statusCode, 405, method)
  }
  res = await app.inject({ url: `${REST}/fonts.json` })
  t.equal(res.statusCode, 401)
})

t.test('the font list: fontconfig\'s names split and unescaped; without fc-list an empty list', async (t) => {
  t.same(parseFamilies('DejaVu Sans,DejaVu Sans Light\nNoto Sans CJK JP,Noto Sans CJK JP Medium\nFoo\\-Bar\\,Baz\n\nDejaVu Sans\n'),
    ['DejaVu Sans', 'DejaVu Sans Light', 'Foo-Bar,Baz', 'Noto Sans CJK JP', 'Noto Sans CJK JP Medium'])
  const errors: Error[] = []
  const none = createFontList({ command: '/nonexistent/fc-list', onError: (err) => errors.push(err) })
  t.same(await none.families(), [])
  t.equal(errors.length, 1)
  t.same(await none.families(), [], 'cached: not run again')
  t.equal(errors.length, 1)
  none.forget()
  await none.families()
  t.equal(errors.length, 2, 'forget() lists again')
})
