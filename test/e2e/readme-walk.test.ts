// The README's "Using the API" section is a walk that runs as written (issue 24, item 3): the
// blocks fenced as ```sh walk in that section are extracted in order and run by bash, one shell
// for the whole walk (its variables carry over), against the built server started as `npm start`
// starts it: a child process on a free loopback port with a temporary data directory. Every
// command must exit 0; every curl must answer 2xx, or the status its trailing comment names
// (`# 201`). Other ```sh blocks (recipes that need more than the walk has) are not run.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ADMIN_PASSWORD, startBuiltServer, tempDir } from '../helper.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')

export interface WalkCommand { block: number, text: string, expect?: number }

/** The commands of the walk: ```sh walk blocks of the "## Using the API" section, in order. */
export function walkCommands (readme: string): WalkCommand[] {
  const lines = readme.split('\n')
  const start = lines.findIndex((l) => /^## Using the API\s*$/.test(l))
  if (start < 0) throw new Error('README.md has no "## Using the API" section')
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l))
  const section = lines.slice(start + 1, end < 0 ? undefined : end)
  const out: WalkCommand[] = []
  let block = -1
  let inWalk = false
  let inOther = false
  let pending = ''
  for (const line of section) {
    if (!inWalk && !inOther && /^```/.test(line)) {
      if (/^```sh walk\s*$/.test(line)) { inWalk = true; block++ } else inOther = true
      continue
    }
    if (/^```\s*$/.test(line)) {
      if (inWalk && pending) throw new Error(`walk block ${block + 1} ends inside a continued line`)
      inWalk = inOther = false
      continue
    }
    if (!inWalk) continue
    if (pending === '' && (/^\s*$/.test(line) || /^\s*#/.test(line))) continue
    if (/\\$/.test(line)) { pending += line.slice(0, -1) + ' '; continue }
    const text = pending + line
    pending = ''
    // A trailing comment (after whitespace) may name the expected status: "# 201, body ...".
    const comment = /\s#\s*(.*)$/.exec(text.replace(/'[^']*'|"[^"]*"/g, (q) => q.replace(/#/g, '_')))
    const status = comment ? /^(\d{3})\b/.exec(comment[1]) : null
    out.push({ block: block + 1, text, ...(status ? { expect: Number(status[1]) } : {}) })
  }
  if (inWalk) throw new Error('a walk block is not closed')
  return out
}


t.test('the walk is extracted from the walk blocks of "Using the API" only', async (t) => {
  const readme = [
    '# x', '## Using the API', 'text', '```sh walk', 'A=1   # set', 'curl -u admin:$PW \\', "  -d '<a>#</a>' http://localhost:8080/x   # 201, created", '```',
    '```sh', 'curl http://elsewhere/needs-more', '```', '```xml', '<sh/>', '```', '### Sub', '```sh walk', '# a comment line', '', 'curl http://localhost:8080/y', '```',
    '## Other', '```sh walk', 'never', '```'
  ].join('\n')
  t.same(walkCommands(readme), [
    { block: 1, text: 'A=1   # set' },
    { block: 1, text: "curl -u admin:$PW    -d '<a>#</a>' http://localhost:8080/x   # 201, created", expect: 201 },
    { block: 2, text: 'curl http://localhost:8080/y' }
  ])
  t.throws(() => walkCommands('# x\n## Usage\n'), /no "## Using the API" section/)
})

t.test("the README's walk runs top to bottom against the built server", async (t) => {
  const commands = walkCommands(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'))
  t.ok(commands.length >= 30, `${commands.length} commands in the walk`)
  const dataDir = tempDir(t, 'mw-walk-data')
  const scratch = tempDir(t, 'mw-walk-tmp') // mktemp -d lands here (TMPDIR)
  const { child, url: origin } = await startBuiltServer(dataDir)
  t.teardown(() => { child.kill('SIGTERM') })

  // One bash for the whole walk. curl is wrapped to record each command's HTTP status; the
  // README's URLs point at the server of this test.
  const codes = path.join(scratch, 'codes')
  const script = [
    'curl () {',
    '  local out',
    "  out=$(command curl -sS -w '\\n%{http_code}' \"$@\") || { echo \"$WALK_N curl-exit-$?\" >> \"$WALK_CODES\"; return 1; }",
    '  echo "$WALK_N ${out##*$\'\\n\'}" >> "$WALK_CODES"',
    '  printf \'%s\\n\' "${out%$\'\\n\'*}" | head -c 400; echo',
    '}',
    ...commands.flatMap((c, i) => [
      `WALK_N=${i}`,
      `echo "::cmd ${i}"`,
      c.text.replaceAll('http://localhost:8080', origin),
      `echo "::rc ${i} $?"`
    ])
  ].join('\n')
  const run = spawnSync('bash', ['-c', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PW: ADMIN_PASSWORD, TMPDIR: scratch, WALK_CODES: codes, npm_config_update_notifier: 'false' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024
  })
  t.equal(run.status, 0, 'bash ran the walk')
  const rcs = new Map([...run.stdout.matchAll(/^::rc (\d+) (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]))
  const statuses = new Map<number, string>()
  for (const line of fs.existsSync(codes) ? fs.readFileSync(codes, 'utf8').trim().split('\n') : []) {
    const [n, code] = line.split(' ')
    statuses.set(Number(n), code)
  }
  commands.forEach((c, i) => {
    const label = `block ${c.block}: ${c.text.replace(/\s+/g, ' ').slice(0, 140)}`
    t.equal(rcs.get(i), 0, `exit 0 - ${label}`)
    if (/^curl\b/.test(c.text.trim())) {
      const code = statuses.get(i)
      if (c.expect !== undefined) t.equal(code, String(c.expect), `HTTP ${c.expect} - ${label}`)
      else t.match(code, /^2\d\d$/, `HTTP 2xx - ${label}`)
    }
  })
  if (!t.passing()) t.comment(run.stdout.slice(-6000) + '\n' + run.stderr.slice(-3000))
  // The examples show what they explain: the GetFeatureInfo asks where the layer has a value, and
  // the verified harvest keeps the day harvested (nothing the walk added is silently lost).
  const outputOf = (i: number) => run.stdout.slice(run.stdout.indexOf(`::cmd ${i}\n`), run.stdout.indexOf(`::rc ${i} `))
  const info = commands.findIndex((c) => /request=GetFeatureInfo/.test(c.text))
  t.ok(info >= 0, 'the walk asks a GetFeatureInfo')
  t.match(outputOf(info), /"features":\[\{[^\]]*"properties":\{"GRAY_INDEX":\d+/, 'the GetFeatureInfo answers a value')
  const index = await fetch(`${origin}/geoserver/rest/workspaces/demo/coveragestores/watertemp/coverages/watertemp/index/granules.json`, { headers: { authorization: 'Basic ' + Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64') } })
  const locations = ((await index.json()) as { features: Array<{ properties: { location: string } }> }).features.map((f) => f.properties.location).sort()
  t.same(locations.filter((l) => l.includes('20240603')), ['watertemp_20240603T000000_0.tif', 'watertemp_20240603T000000_100.tif'], 'the harvested day is in the index at the end of the walk')
  // What the walk made is really there: the demo's layer answered a tile, a PNG.
  const tile = fs.readFileSync(path.join(fs.readdirSync(scratch).map((d) => path.join(scratch, d)).find((d) => fs.existsSync(path.join(d, 'mosaic.zip')))!, 'tile.png'))
  t.same([...tile.subarray(1, 4)], [0x50, 0x4e, 0x47], 'tile.png is a PNG')
})
