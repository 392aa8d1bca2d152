// Where the benchmark mosaic is (tile cache, mosaics, WMS, cluster and load figures): `BENCH_DATA`,
// or /tmp/bench-data, where ../shared/bench/make-mosaic.sh writes it by default. The script is
// named relative to the repository's folder (`BENCH_MOSAIC_SCRIPT` to point elsewhere).
export const BENCH_DATA = process.env.BENCH_DATA ?? '/tmp/bench-data'
export const MOSAIC_SCRIPT = process.env.BENCH_MOSAIC_SCRIPT ?? '../shared/bench/make-mosaic.sh'
export const NO_BENCH_DATA = `no benchmark mosaic at ${BENCH_DATA}; run ${MOSAIC_SCRIPT} from the repository's folder`
