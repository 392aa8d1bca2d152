// A fast start: `npm start` runs the built server and builds nothing; the build happens where npm
// expects it (the prepare script, which `npm install` and `npm ci` run), and `npm test` builds
// first. `npm run demo` does not rebuild dist/ under a running server either.
import t from 'tap'
import fs from 'node:fs'

const pkg = JSON.parse(fs.readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }

t.test('npm start and npm run demo build nothing; npm install (prepare) and npm test do', async (t) => {
  const { scripts } = pkg
  t.notOk(scripts.prestart, 'no prestart hook')
  t.notMatch(scripts.start, /build|tsc|esbuild/, 'start runs the built server')
  t.match(scripts.start, /node (--[\w-]+=\S+ )*dist\/plugins\/server\.js/, 'node (with its flags) on the built server')
  t.notOk(scripts.predemo, 'no predemo hook')
  t.notMatch(scripts.demo, /build|tsc/, 'the demo uses the built code')
  t.match(scripts.prepare, /npm run build/, 'npm install and npm ci build')
  t.match(scripts.pretest, /npm run build/, 'npm test builds first')
})
