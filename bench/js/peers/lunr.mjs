// Peer adapter: Lunr 2.3.9 (per-field BM25, summed; immutable index).
// Lunr's default pipeline is English (trimmer, stopWordFilter, stemmer): one config.
// Queries are built with the query API (no lunr syntax, so user text never throws);
// AND = presence REQUIRED on every non-stopword term.
import lunr from 'lunr';

export const info = { name: 'lunr', package: 'lunr', configs: ['english'] };

export async function create() {
  let idx;
  return {
    build(docs) {
      idx = lunr(function () {
        this.ref('id');
        this.field('title');
        this.field('text');
        for (const d of docs) this.add({ id: d.id, title: d.title, text: d.text });
      });
    },
    search(q, { mode, k }) {
      const toks = lunr.tokenizer(q)
        .map((t) => lunr.stopWordFilter(lunr.trimmer(t)))
        .filter((t) => t && t.toString().length > 0)
        .map((t) => t.toString().replace(/\*/g, ''))
        .filter((t) => t.length > 0);
      if (toks.length === 0) return [];
      const presence = mode === 'and' ? lunr.Query.presence.REQUIRED : lunr.Query.presence.OPTIONAL;
      const r = idx.query((query) => {
        for (const t of toks) query.term(t, { presence });
      });
      return r.slice(0, k).map((h) => h.ref);
    },
    serialize() { return Buffer.from(JSON.stringify(idx)); },
    load(buf) { idx = lunr.Index.load(JSON.parse(buf.toString('utf8'))); },
    // No add(): Lunr indexes are immutable after build.
    agentUnsupported: 'Lunr indexes are immutable: every write would need a full rebuild of the index',
  };
}
