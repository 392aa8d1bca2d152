// GWC's page model: page sizes per level and tile -> page -> tiles.
import t from 'tap'
import { blockRound, frequencyOfUse, geometryFor, pageOf, pageRect, tilesPerPage } from '../../../services/diskquota/tile-page.js'

t.test('tiles per page follow PagePyramid (n / log1.1(n), at least 1)', async (t) => {
  t.equal(tilesPerPage(1), 1)
  t.equal(tilesPerPage(2), 1)
  t.equal(tilesPerPage(8), 1)
  t.equal(tilesPerPage(1024), 15)
  t.equal(tilesPerPage(2 ** 21), 13_732)
})

t.test('a tile lies inside the rectangle of its page', async (t) => {
  const g = geometryFor([3, 5, 1026, 300])
  t.same(g, { minX: 3, minY: 5, tilesX: 15, tilesY: 5 })
  for (const [x, y] of [[3, 5], [17, 10], [18, 11], [1026, 300], [0, 0]]) {
    const { px, py } = pageOf(g, x, y)
    const r = pageRect(g, px, py)
    t.ok(x >= r[0] && x <= r[2] && y >= r[1] && y <= r[3], `${x},${y} in page ${px},${py}`)
  }
  t.same(pageOf(g, 0, 0), { px: -1, py: -1 }, 'tiles outside the coverage still get a page')
})

t.test('sizes round up to whole blocks and frequency of use weights hits by fill', async (t) => {
  t.equal(blockRound(0, 4096), 0)
  t.equal(blockRound(1, 4096), 4096)
  t.equal(blockRound(4096, 4096), 4096)
  t.equal(blockRound(4097, 4096), 8192)
  t.equal(frequencyOfUse(6, 0, 2 * 60_000, 0.5), 1)
  t.equal(frequencyOfUse(0, 0, 0, 1), 0)
})
