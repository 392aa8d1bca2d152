// The better-sqlite3 build for the running Node. Node 24.19 made node::ObjectWrap's destructor
// require an entered context, and better-sqlite3 12 derives its Statement from ObjectWrap: a
// statement collected by an idle GC aborts the process (SIGABRT, "(env) != nullptr"). Version 13
// is a Node-API build without that flaw, but needs Node 22 (it crashes on Node 20). 12 is a
// dependency; 13 is installed under the alias better-sqlite3-napi on Node 22 and later only, by
// scripts/install-sqlite-napi.sh (npm's postinstall), and the one for this Node is loaded; their
// JavaScript API is the same.
import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

const require = createRequire(import.meta.url)
const major = Number(process.versions.node.split('.')[0])

function load (): typeof BetterSqlite3 {
  if (major < 22) return require('better-sqlite3')
  try {
    return require('better-sqlite3-napi')
  } catch (err) {
    // Not a package.json dependency (it would warn on Node 20 installs): scripts/install-sqlite-napi.sh
    // adds it after npm install / npm ci on Node 22 and later.
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err
    throw new Error(`better-sqlite3 13 is needed on Node ${process.versions.node} and is not installed: run scripts/install-sqlite-napi.sh ` +
      '(or add "better-sqlite3-napi": "npm:better-sqlite3@13" to the dependencies of the application that hosts mapwarden)')
  }
}

export const Database: typeof BetterSqlite3 = load()
