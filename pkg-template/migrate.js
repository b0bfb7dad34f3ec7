// Memdex.migrate: rebuilds an index from its stored documents (vectors and
// links included) under a schema or analyzer that cannot apply in place,
// and stores the result with one commit of the target index: a crash
// before its manifest swap leaves the old state (and at a new name,
// nothing), after it the complete new one (docs/FORMAT.md, "Migration").
import { isObject, usage } from './memdex-error.js';
import { engineConfig } from './open-options.js';
import { loadFor, platformOf } from './realm.js';

/** Rebuilds `source`'s documents under a config and commits them as the receiver's next commit. */
export const REBUILD_FROM = Symbol('rebuildFrom');

/** Where an index is: the open options `from` passes on (never its schema: the stored one is read). */
const LOCATION = ['name', 'storage', 'dir', 'database', 'wasm'];
/** What `to` may say: the new name and the new configuration. */
const TARGET = new Set(['name', 'schema', 'defaultSchema', 'language', 'analyzer', 'k1', 'b']);

/**
 * @typedef {object} Migratable an index class (Memdex) and the instances it opens
 * @property {(options: object) => Promise<any>} open
 * @property {import('./realm.js').Platform} [platform]
 */

/**
 * `Memdex.migrate({ from, to })`: see index.d.ts.
 * @param {Migratable} cls
 * @param {unknown} options
 * @returns {Promise<{ name: string, documents: number, generation: number }>}
 */
export async function migrate(cls, options) {
  if (!isObject(options) || !isObject(options.from) || !isObject(options.to)) {
    throw usage('Memdex.migrate({ from, to }): `from` is where the index is ({ storage, dir, name }), `to` its new { schema, analyzer, name? }');
  }
  for (const key of Object.keys(options)) {
    if (key !== 'from' && key !== 'to') throw usage(`Memdex.migrate: unknown option \`${key}\`; expected from, to`);
  }
  const { from, to } = /** @type {{ from: Record<string, unknown>, to: Record<string, unknown> }} */ (options);
  for (const key of Object.keys(to)) {
    if (!TARGET.has(key)) throw usage(`Memdex.migrate: unknown option \`to.${key}\`; expected one of ${[...TARGET].join(', ')}`);
  }
  if ((from.storage ?? 'memory') === 'memory') {
    throw usage("Memdex.migrate: `from.storage` is where the index is stored ('fs' with `dir`, 'indexeddb' or an adapter)");
  }
  /** @type {Record<string, unknown>} */
  const location = {};
  for (const key of LOCATION) if (from[key] !== undefined) location[key] = from[key];
  const config = engineConfig(to) ?? {};
  // The target's language chooses the wasm before the source holds it (languages.js).
  await loadFor(platformOf(cls), location.wasm, config);
  const source = await cls.open({ ...location, autoCommit: false });
  try {
    const name = /** @type {string} */ (to.name ?? source.name);
    if (name === source.name) {
      const generation = await source[REBUILD_FROM](source, config);
      return { name, documents: source.size, generation };
    }
    const target = await cls.open({ ...location, name, autoCommit: false });
    try {
      if (target.generation !== 0) {
        throw usage(`Memdex.migrate: index '${name}' already exists; migrate into a new name, or delete that index first`);
      }
      const generation = await target[REBUILD_FROM](source, config);
      return { name, documents: target.size, generation };
    } finally {
      target.free();
    }
  } finally {
    source.free();
  }
}
