// Layers drawn one over another: a map's layers (map.ts), a metatile's jobs (metatile.ts) and the
// batches of a vector layer of many features (vector/draw-vector.ts).

/** Draws `src` over `dst` (both RGBA, straight alpha), pixel by pixel. */
export function over (dst: Uint8Array, dstOffset: number, src: Uint8Array): void {
  for (let i = 0; i < src.length; i += 4) {
    const sa = src[i + 3]
    if (sa === 0) continue
    const d = dstOffset + i
    if (sa === 255) { dst[d] = src[i]; dst[d + 1] = src[i + 1]; dst[d + 2] = src[i + 2]; dst[d + 3] = 255; continue }
    const da = dst[d + 3]
    const oa = sa + da * (255 - sa) / 255
    for (let c = 0; c < 3; c++) dst[d + c] = Math.round((src[i + c] * sa + dst[d + c] * da * (255 - sa) / 255) / oa)
    dst[d + 3] = Math.round(oa)
  }
}
