// The better-sqlite3 build for the running Node. Node 24.19 made node::ObjectWrap's destructor
// require an entered context, and better-sqlite3 12 derives its Statement from ObjectWrap: a
// statement collected by an idle GC aborts the process (SIGABRT, "(env) != nullptr"). Version 13
// is a Node-API build without that flaw, but needs Node 22 (it crashes on Node 20). Both are
// installed (13 under the alias better-sqlite3-napi) and the one for this Node is loaded; their
// JavaScript API is the same.
import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

const require = createRequire(import.meta.url)
const major = Number(process.versions.node.split('.')[0])

export const Database: typeof BetterSqlite3 = require(major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3')
