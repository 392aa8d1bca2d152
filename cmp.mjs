import sharp from 'sharp'
const [p, q] = process.argv.slice(2)
const a = await sharp(p).ensureAlpha().raw().toBuffer()
const b = await sharp(q).ensureAlpha().raw().toBuffer()
let n = 0, max = 0
for (let i = 0; i < a.length; i += 4) { let m = 0; for (let c = 0; c < 4; c++) m = Math.max(m, Math.abs(a[i + c] - b[i + c])); if (m) n++; max = Math.max(max, m) }
console.log(p, q, 'pixels differing', n, 'max', max)
