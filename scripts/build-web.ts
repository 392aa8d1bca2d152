// Bundles the admin page (web/) into dist/web with esbuild at build time: app.js (the page and
// OpenLayers from the `ol` package), api.js (the OpenAPI page), app.css (with ol.css) and the
// two HTML files. The server reads dist/web; nothing is built at run time.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const src = path.join(root, 'web')
const out = path.join(root, 'dist', 'web')

await build({
  entryPoints: ['app.ts', 'api.ts', 'app.css'].map((f) => path.join(src, f)),
  outdir: out,
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  sourcemap: false,
  legalComments: 'linked',
  logLevel: 'warning'
})
for (const f of ['index.html', 'api.html']) fs.copyFileSync(path.join(src, f), path.join(out, f))
console.log(`admin page built into ${path.relative(root, out)}`)
