// The render worker's thread gives itself the nice value in workerData (MAPWARDEN_RENDER_NICE), so
// the event loop wins the CPU over render work (see backgroundThreadPriority in
// services/render/render-pool.ts).
// Imported before anything else in the worker: threads started while modules load (libvips')
// inherit the priority of the thread that starts them.
import os from 'node:os'
import { workerData } from 'node:worker_threads'
import type { RenderThreadData } from '../services/render/metatile.js' // (a type: nothing loads before the nice value)

const nice = (workerData as RenderThreadData | undefined)?.nice
if (nice) {
  try { os.setPriority(0, nice) } catch { /* not permitted here: render at the same priority */ }
}
