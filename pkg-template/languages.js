// Which wasm of the full build a browser realm runs. The browser entry
// (index.js) ships two: memdex-english_bg.wasm (English and `none`
// analysis, ~48 KB gz smaller) and memdex_bg.wasm (every language). It
// fetches the English one unless the first open asks for another language,
// and switches to the all-languages one the first time an index needs it:
// a new index given such a `language`, or a stored one the English wasm
// cannot analyze (the engine says so, and the call runs again).
//
// A switch replaces the realm's wasm instance, so it is only made while no
// index opened whole is open in the realm: their engines live in that
// instance and answer synchronously. Lazy indexes reopen in the new one by
// themselves (every call of theirs is async). Node, workerd, the lexical
// entry and a `wasm` given to open run one wasm and never switch.
import { MemdexError, usage } from './memdex-error.js';
import { ensureLoaded, realm, switchToAllLanguages } from './realm.js';

/** Languages the English wasm analyzes. */
const ENGLISH = new Set(['english', 'none']);

/**
 * The first language an engine config names that the English wasm lacks
 * (the index's, else a field's); undefined when none. The engine checks
 * the values themselves.
 * @param {Record<string, any> | undefined} config from `engineConfig`
 * @returns {string | undefined}
 */
function otherLanguage(config) {
  const other = (/** @type {unknown} */ language) => (typeof language === 'string' && !ENGLISH.has(language) ? language : undefined);
  const schema = config?.schema;
  const fields = schema !== null && typeof schema === 'object' ? Object.values(schema) : [];
  return other(config?.analyzer?.language) ?? fields.map((field) => other(field?.language)).find(Boolean);
}

/**
 * The engine's refusal of a language its wasm was built without (the
 * contract of src/analysis/stem.rs).
 * @param {unknown} err
 */
function isMissingLanguage(err) {
  const e = /** @type {MemdexError} */ (err);
  return e instanceof MemdexError && e.code === 'SCHEMA' && e.data?.field === 'language' && String(e.data?.reason).startsWith('not in this build');
}

/**
 * Switches this realm to the all-languages wasm, or says why it cannot.
 * Waits out a restart in progress first (after a trap, or another call's
 * switch: then there is nothing left to do). The check of the open
 * indexes and the switch run in one turn: no index opens between them.
 * @param {import('./realm.js').Platform} platform
 * @param {string} why what needs it
 */
async function switchNow(platform, why) {
  while (realm.reviving) await realm.reviving.catch(() => {});
  if (realm.languages !== 'english') return;
  const open = [...realm.boxes].filter((box) => box.engine).map((box) => `'${box.name}'`);
  if (open.length) {
    throw usage(
      `${why} needs memdex's all-languages wasm, and this ${typeof window === 'undefined' ? 'worker' : 'page'} runs the English one for the indexes open here (${open.join(', ')}): ` +
        'open indexes in other languages before those (the first open chooses the wasm), close the open ones first, or open each index in its own worker (openInWorker)',
    );
  }
  return switchToAllLanguages(platform);
}

/**
 * Loads the realm's wasm for an open, import or recover given `config`
 * (the English one unless it names another language; `source`: a `wasm`
 * the caller gave, loaded as is).
 * @param {import('./realm.js').Platform} platform
 * @param {unknown} source
 * @param {Record<string, any> | undefined} config
 */
async function loadFor(platform, source, config) {
  const other = otherLanguage(config);
  await ensureLoaded(platform, source, other !== undefined);
  if (other !== undefined && source === undefined) await switchNow(platform, `language '${other}'`);
}

/**
 * `fn()` (a load or open in this realm's wasm), run again in the
 * all-languages wasm when the English one refused the stored index's
 * language.
 * @template T
 * @param {import('./realm.js').Platform} platform
 * @param {unknown} source the caller's `wasm` (then nothing switches)
 * @param {string} name the index, for the error
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function inItsLanguage(platform, source, name, fn) {
  try {
    return await fn();
  } catch (err) {
    // (`all` already: a switch ran while `fn` did; it runs again in the new wasm.)
    if (!isMissingLanguage(err) || source !== undefined || realm.languages === undefined) throw err;
    await switchNow(platform, `index '${name}'`);
    return fn();
  }
}

/** The browser entry's language switch (`Platform.languages`). @type {import('./realm.js').LanguageSwitch} */
export const languageSwitch = { loadFor, inItsLanguage };
