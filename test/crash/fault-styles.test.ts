// kill -9 at each fault point of the workspace, style, seed-task and tile write paths,
// then the seven invariants.
import t from 'tap'

// Several server starts and kills: more than the suite's 180 s on a loaded 2-core machine.
t.setTimeout(600_000)
import { runFaultPoints } from './fault-run.js'

t.test('a kill at any style, workspace, seed or tile fault point loses nothing acknowledged and tears nothing', async (t) => {
  await runFaultPoints(t, [
    'workspace.beforeCommit', 'workspace.afterCommit',
    'style.afterImages', 'style.afterTempWrite', 'style.beforeRename', 'style.afterRename', 'style.afterRow',
    'style.afterTempWrite@2', 'style.afterRename@3', 'style.afterRow@3',
    'seed.taskRecordWrite', 'seed.afterTaskRecord@3', 'seed.afterTaskRecord@4',
    'tile.beforeRename@5', 'tile.afterRename@9'
  ], 11)
})
