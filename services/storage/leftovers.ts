// Files a stopped process leaves in the data directory, cleared by the first process to start on it.
import fs from 'node:fs'
import path from 'node:path'
import { removeTempFiles } from '../files/atomic.js'

/** What an interrupted run left: tmp/ (staging, uploads) emptied, temp files of unfinished writes removed. */
export async function clearLeftovers (dataDir: string): Promise<void> {
  const tmp = path.join(dataDir, 'tmp')
  await fs.promises.rm(tmp, { recursive: true, force: true })
  await fs.promises.mkdir(tmp, { recursive: true })
  await removeTempFiles(dataDir, ['tiles', 'tmp'])
}
