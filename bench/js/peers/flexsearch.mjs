// Peer adapter: FlexSearch 0.8 (no BM25: resolution-based ranking). One Index over
// "title + text" so AND can match terms across the two fields; OR = `suggest: true`.
// English config = FlexSearch's own English language pack (flexsearch/lang/en: stopword filter + stemmer).
import { Index, Encoder } from 'flexsearch';
import EnglishPreset from 'flexsearch/lang/en';

export const info = { name: 'flexsearch', package: 'flexsearch', configs: ['default', 'english'] };

function make(config) {
  const o = { tokenize: 'strict' };
  if (config === 'english') o.encoder = new Encoder(EnglishPreset);
  return new Index(o);
}

export async function create(config) {
  let idx = make(config);
  return {
    build(docs) { for (const d of docs) idx.add(d.id, `${d.title} ${d.text}`); },
    search(q, { mode, k }) { return idx.search(q, { limit: k, suggest: mode !== 'and' }); },
    async serialize() {
      const parts = {};
      await idx.export((key, data) => { parts[key] = data; });
      return Buffer.from(JSON.stringify(parts));
    },
    load(buf) {
      idx = make(config);
      const parts = JSON.parse(buf.toString('utf8'));
      for (const [key, data] of Object.entries(parts)) idx.import(key, data);
    },
    add(d) { idx.add(d.id, `${d.title} ${d.text}`); },
    commitKind: 'index.export() of the whole index, written to one file',
  };
}
