// The layout of encoded tiles sent back by render-metatile in one transferred buffer:
// u32 count, u32 length of each tile, then the tiles' bytes (top-left first, row by row).
// Kept apart from the worker so the main thread does not load (and reconfigure) sharp.
export function packTiles (encoded: Uint8Array[]): Uint8Array {
  const header = 4 * (1 + encoded.length)
  const out = new Uint8Array(header + encoded.reduce((n, b) => n + b.length, 0))
  const view = new DataView(out.buffer)
  view.setUint32(0, encoded.length)
  let off = header
  encoded.forEach((b, i) => { view.setUint32(4 * (i + 1), b.length); out.set(b, off); off += b.length })
  return out
}

export function splitTiles (buf: Uint8Array): Uint8Array[] {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  const n = view.getUint32(0)
  const out: Uint8Array[] = []
  let off = 4 * (1 + n)
  for (let i = 0; i < n; i++) {
    const len = view.getUint32(4 * (i + 1))
    out.push(buf.subarray(off, off + len))
    off += len
  }
  return out
}
