// Peer adapter: SQLite FTS5 from @sqlite.org/sqlite-wasm (in-memory DB inside wasm).
// English config = tokenize='porter unicode61'; default = 'unicode61'. Ranked by bm25().
// Query text -> unicode word runs, each double-quoted (so no FTS5 syntax errors), joined by OR / AND.
// Serialize = sqlite3_js_db_export (whole DB image); load = sqlite3_deserialize.
import sqlite3InitModule from '@sqlite.org/sqlite-wasm';
import { words } from '../common.mjs';

export const info = { name: 'sqlite-fts5', package: '@sqlite.org/sqlite-wasm', configs: ['default', 'english'] };

let sqlite3;
async function init() {
  if (!sqlite3) sqlite3 = await sqlite3InitModule({ print() {}, printErr() {} });
  return sqlite3;
}

export function matchExpr(q, mode) {
  const toks = words(q);
  if (toks.length === 0) return null;
  return toks.map((t) => `"${t.replace(/"/g, '""')}"`).join(mode === 'and' ? ' AND ' : ' OR ');
}

export async function create(config) {
  const s = await init();
  const tokenize = config === 'english' ? 'porter unicode61' : 'unicode61';
  let db = new s.oo1.DB(':memory:');
  let stmt;
  const prepare = () => {
    stmt = db.prepare('SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?');
  };
  let ins;
  return {
    libVersion: s.version.libVersion,
    build(docs) {
      db.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize='${tokenize}')`);
      db.exec('BEGIN');
      const st = db.prepare('INSERT INTO docs(id, title, text) VALUES (?, ?, ?)');
      for (const d of docs) { st.bind([d.id, d.title, d.text]).stepReset(); }
      st.finalize();
      db.exec('COMMIT');
      prepare();
    },
    search(q, { mode, k }) {
      const m = matchExpr(q, mode);
      if (!m) return [];
      stmt.bind([m, k]);
      const ids = [];
      while (stmt.step()) ids.push(stmt.get(0));
      stmt.reset();
      return ids;
    },
    serialize() { return Buffer.from(s.capi.sqlite3_js_db_export(db.pointer)); },
    load(buf) {
      if (stmt) stmt.finalize();
      db.close();
      db = new s.oo1.DB(':memory:');
      const p = s.wasm.allocFromTypedArray(new Uint8Array(buf));
      const rc = s.capi.sqlite3_deserialize(db.pointer, 'main', p, buf.length, buf.length,
        s.capi.SQLITE_DESERIALIZE_FREEONCLOSE | s.capi.SQLITE_DESERIALIZE_RESIZEABLE);
      db.checkRc(rc);
      prepare();
    },
    agentInit() {
      db.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize='${tokenize}')`);
      ins = db.prepare('INSERT INTO docs(id, title, text) VALUES (?, ?, ?)');
      prepare();
    },
    add(d) { ins.bind([d.id, d.title, d.text]).stepReset(); },
    commitKind: 'autocommit INSERT, then sqlite3_js_db_export of the whole DB image written to one file (sqlite-wasm has no Node file VFS)',
  };
}
