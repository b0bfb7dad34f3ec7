// Peer adapter: MiniSearch 7 (BM25-like scoring, in-memory, JSON serialization).
// English config = lowercase + Snowball-free Porter stemmer (`stemmer` npm) + English stopwords (@orama/stopwords list).
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { stopwords } from '@orama/stopwords/english';

export const info = { name: 'minisearch', package: 'minisearch', configs: ['default', 'english'] };
const STOP = new Set(stopwords);

function options(config) {
  const o = { idField: 'id', fields: ['title', 'text'], storeFields: [] };
  if (config === 'english') {
    o.processTerm = (term) => {
      const t = term.toLowerCase();
      return STOP.has(t) ? null : stemmer(t);
    };
  }
  return o;
}

export async function create(config) {
  let ms = new MiniSearch(options(config));
  return {
    build(docs) { ms.addAll(docs.map((d) => ({ id: d.id, title: d.title, text: d.text }))); },
    search(q, { mode, k }) {
      const r = ms.search(q, { combineWith: mode === 'and' ? 'AND' : 'OR' });
      const n = Math.min(k, r.length);
      const ids = new Array(n);
      for (let i = 0; i < n; i++) ids[i] = r[i].id;
      return ids;
    },
    serialize() { return Buffer.from(JSON.stringify(ms)); },
    load(buf) { ms = MiniSearch.loadJSON(buf.toString('utf8'), options(config)); },
    add(d) { ms.add({ id: d.id, title: d.title, text: d.text }); },
    commitKind: 'JSON.stringify(index) of the whole index, written to one file',
  };
}
