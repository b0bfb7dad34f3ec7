// Peer adapter: Orama 3 (BM25, in-memory). OR = threshold 1, AND = threshold 0.
// English config = @orama/stemmers english + @orama/stopwords english (the documented way).
import { create as createDb, insertMultiple, insert, search, save, load } from '@orama/orama';
import { stemmer, language } from '@orama/stemmers/english';
import { stopwords } from '@orama/stopwords/english';

export const info = { name: 'orama', package: '@orama/orama', configs: ['default', 'english'] };
const schema = { id: 'string', title: 'string', text: 'string' };

function make(config) {
  const opts = { schema };
  if (config === 'english') opts.components = { tokenizer: { stemming: true, stemmer, language, stopWords: stopwords } };
  return createDb(opts);
}

export async function create(config) {
  let db = make(config);
  return {
    async build(docs) { await insertMultiple(db, docs.map((d) => ({ id: d.id, title: d.title, text: d.text })), 1000); },
    async search(q, { mode, k }) {
      const r = await search(db, { term: q, properties: ['title', 'text'], limit: k, threshold: mode === 'and' ? 0 : 1 });
      return r.hits.map((h) => h.id);
    },
    // save()/load() are Orama's raw snapshot API (what @orama/plugin-data-persistence's 'json'
    // format wraps); load() into a db created with the same components keeps the English tokenizer.
    async serialize() { return Buffer.from(JSON.stringify(await save(db))); },
    async load(buf) {
      db = make(config);
      await load(db, JSON.parse(buf.toString('utf8')));
    },
    async add(d) { await insert(db, { id: d.id, title: d.title, text: d.text }); },
    commitKind: 'JSON.stringify(save(db)) of the whole index, written to one file',
  };
}
