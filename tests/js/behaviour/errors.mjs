// Behaviour suite, errors and limits: stable codes with messages that say
// what to do, values JSON cannot carry, nesting depth, the query budget.

/** Registers this area's cases on the context suiteContext() made. */
export function defineErrors({ Memdex, makeStorage, assert, t, expectCode, fresh }) {
  t('errors carry stable codes and say what to do', async () => {
    const index = await fresh();
    await expectCode(() => index.add({ title: 'no id' }), 'SCHEMA');
    await expectCode(() => index.add('not a doc'), 'SCHEMA');
    await expectCode(() => index.add({ id: 'x', colour: 'blue' }), 'SCHEMA');
    await expectCode(() => index.search('"unclosed', { syntax: 'strict' }), 'INVALID_QUERY');
    assert.ok(Array.isArray(index.search('"unclosed (').hits), 'lenient never throws');
    await expectCode(() => index.search('x', { limt: 3 }), 'USAGE');
    await expectCode(() => index.search('x', { mode: 'xor' }), 'USAGE');
    // A wrong shape is USAGE for every option (NaN included: JSON would make
    // it null); a name the schema lacks is SCHEMA.
    for (const bad of [
      { prefix: 'yes' }, { explain: 1 }, { highlight: 5 }, { highlight: { pre: '<b>' } },
      { highlight: { preTag: 1 } }, { highlight: { snippetLength: -1 } }, { storedFields: 'title' },
      { storedFields: ['title', 3] }, { fields: ['title'] }, { fields: { title: -1 } }, { fields: { title: NaN } },
      { k1: 'x' }, { k1: Infinity }, { b: NaN }, { b: 1.5 },
    ]) {
      await expectCode(() => index.search('backup', bad), 'USAGE');
    }
    await expectCode(() => index.search('backup', { fields: { colour: 1 } }), 'SCHEMA');
    await expectCode(() => index.search('backup', { storedFields: ['colour'] }), 'SCHEMA');
    const shaped = index.search('backup', {
      highlight: { preTag: '[', postTag: ']', snippetLength: 60 }, fields: { title: 0, text: 1 }, storedFields: ['title'], k1: 0, b: 1,
      prefix: false, explain: false,
    });
    assert.ok(shaped.hits.length > 0);
    await expectCode(() => index.search(42), 'INVALID_QUERY');
    await expectCode(() => index.get(7), 'USAGE');
    await expectCode(() => index.removeWhere({}), 'USAGE');
    await expectCode(Memdex.open({ storage: 'floppy' }), 'USAGE');
    await expectCode(Memdex.open({ colour: 'red' }), 'USAGE');
    await expectCode(Memdex.open({ schema: { title: { type: 'vector' } } }), 'SCHEMA');
    await index.close();
  });

  t('NaN and ±Infinity, which JSON cannot carry, are SCHEMA errors naming the field', async () => {
    const schema = { title: { type: 'text' }, text: { type: 'text' }, score: { type: 'number' }, meta: { type: 'stored' } };
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false, schema });
    // JSON.stringify writes them as null, which dropped the field silently.
    for (const bad of [NaN, Infinity, -Infinity]) {
      const e = await expectCode(() => index.add({ id: 'n', title: 'x', score: bad }), 'SCHEMA');
      assert.match(e.message, /`score`/);
      const b = await expectCode(() => index.addAll([{ id: 'ok', text: 'fine' }, { id: 'n', meta: { xs: [1, bad] } }]), 'SCHEMA');
      assert.match(b.message, /`meta\.xs\[1\]`/);
      assert.match(b.message, /"n"/);
      assert.equal(b.added, 1);
    }
    assert.equal(index.get('n'), undefined);
    assert.equal(index.get('ok').text, 'fine');
    index.add({ id: 'z', score: 0, meta: { note: null, n: -1.5 } });
    // (Field by field: the browser harness's deepEqual compares key order.)
    const meta = index.get('z').meta;
    assert.equal(meta.note, null);
    assert.equal(meta.n, -1.5);
    await index.close();
  });

  t('documents nested deeper than 127 levels: LIMIT naming the document, from add, addAll and addMany', async () => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false, schema: { text: { type: 'text' }, meta: { type: 'stored' } } });
    // 200 levels: JSON.stringify copes, the engine's parser stops at 127.
    // 5,000 levels: JSON.stringify itself overflows (a plain RangeError before).
    for (const depth of [200, 5000]) {
      let deep = 'leaf';
      for (let i = 0; i < depth; i++) deep = { a: deep };
      for (const add of [(docs) => index.addAll(docs), (docs) => index.addMany(docs)]) {
        const e = await expectCode(() => add([{ id: `ok${depth}`, text: 'kept' }, { id: 'deep', meta: deep }]), 'LIMIT');
        assert.match(e.message, /"deep"/);
        assert.match(e.message, /127/);
        assert.equal(e.added, 1);
      }
      const single = await expectCode(() => index.add({ id: 'deep', meta: deep }), 'LIMIT');
      assert.match(single.message, /127/);
      assert.equal(index.get(`ok${depth}`).text, 'kept');
    }
    assert.equal(index.get('deep'), undefined);
    await index.close();
  });

  t('query budget: repeats merged; an over-budget query is flagged (lenient) or LIMIT (strict)', async () => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false, language: 'none' });
    // 48 two-letter prefixes with 80 words each: 48 * 64 expansions would
    // exceed the 1,024 a query may have.
    const letter = (i) => String.fromCharCode(97 + (i % 26));
    const prefixes = Array.from({ length: 48 }, (_, p) => letter(Math.floor(p / 26) + 1) + letter(p));
    const docs = prefixes.map((p, i) => ({
      id: `p${i}`,
      text: Array.from({ length: 80 }, (_, w) => p + letter(Math.floor(w / 26)) + letter(w)).join(' '),
    }));
    index.addAll(docs);
    const query = prefixes.map((p) => `${p}*`).join(' ');
    const cut = index.search(query, { limit: 48 });
    assert.deepEqual(cut.limited, ['expansions']);
    assert.equal(cut.hits.length, 48);
    const e = await expectCode(() => index.search(query, { syntax: 'strict' }), 'LIMIT');
    assert.match(e.message, /expansions/);
    // Up to 16 expanding terms keep their full expansions: no flag.
    const few = index.search(prefixes.slice(0, 16).map((p) => `${p}*`).join(' '), { syntax: 'strict' });
    assert.equal('limited' in few, false);
    // A clause repeated 1,024 times is planned once, as its summed boost.
    const once = index.search(`${prefixes[0]}*^1024`);
    const repeated = index.search(Array(1024).fill(`${prefixes[0]}*`).join(' '));
    assert.deepEqual(repeated.hits.map((h) => [h.id, h.score]), once.hits.map((h) => [h.id, h.score]));
    assert.equal('limited' in repeated, false);
    await index.close();
  });
}
