// kill -9 at each fault point of the mosaic, granule, disk quota, master password, ACL and catalog
// mode write paths, then the seven
// invariants: a replace interrupted anywhere leaves the old store or the new one, a purge between
// row and file is finished at start, the quota usage equals a scan, the master password opens.
import t from 'tap'

// Several server starts and kills: more than the suite's 180 s on a loaded 2-core machine.
t.setTimeout(600_000)
import { runFaultPoints } from './fault-run.js'

t.test('a kill at any mosaic, quota, security fault point loses nothing acknowledged and tears nothing', async (t) => {
  await runFaultPoints(t, [
    'mosaic.afterStage', 'mosaic.afterAside@2', 'mosaic.afterFileBeforeIndex@2', 'mosaic.afterIndex@2',
    'mosaic.harvestBeforeIndex', 'mosaic.deleteBeforeFiles', 'granule.afterRowBeforeFile',
    'quota.beforeConfigWrite', 'quota.afterConfigWrite', 'quota.beforeFlush',
    'masterpw.afterNewKeystore', 'masterpw.beforeCommit', 'masterpw.afterCommit',
    'acl.beforeCommit@2', 'acl.afterCommit',
    'catalogMode.beforeCommit'
  ], 23)
})
