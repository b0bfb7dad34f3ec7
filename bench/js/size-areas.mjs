// The names size-report.mjs gives the wasm's items: the area an item
// belongs to and what the largest ones buy. Rules are tried in order; the
// first whose pattern matches a (demangled) item name wins.

// The standard library's own symbols may carry a crate hash: `core[c593…]::`.
const STD = String.raw`(?:core|alloc|std|hashbrown)(?:\[[0-9a-f]+\])?`;

/** Areas of the wasm, in the order they are tried. */
export const AREAS = [
  { name: 'data', what: 'constant data: stop lists, stemmer and Unicode tables, messages, option names, panic locations', re: /^data segment/ },
  { name: 'formatting', what: '`core::fmt` (`format!`, `Display`, `Debug`) and what calls only it', re: new RegExp(`${STD}::fmt|as ${STD}::fmt::|::fmt::h|::fmt$`) },
  { name: 'panics', what: 'panic paths: unwrap, bounds and overflow checks, the panic handler', re: /panic|unwrap_failed|expect_failed|_index_(len_)?fail|index_order_fail|slice_error_fail|out_of_bounds|capacity_overflow|handle_alloc_error/ },
  { name: 'drop glue', what: 'compiler-generated destructors', re: /drop_in_place/ },
  { name: 'stemmers', what: 'Snowball stemmers (rust-stemmers)', re: /rust_stemmers/ },
  { name: 'Unicode', what: 'word segmentation and Unicode property lookups', re: /unicode/ },
  { name: 'JSON', what: "memdex's JSON parser and writer, option reading", re: /memdex_json|memdex::jsonopt|ToJson/ },
  { name: 'JS bindings', what: 'wasm-bindgen shims (with the engine calls inlined into them) and js-sys', re: /wasm_bindgen|js_sys|shim|__wbindgen|__wbg|^engine_|^commithandle_|^loadedindex_|^loadindex|^recoverindex|^buildname/i },
  { name: 'search', what: 'query parsing, planning, scoring, hits, snippets, suggest, filters, term dictionary', re: /memdex::(query|termdict|postings|filter)/ },
  { name: 'vectors', what: 'vector columns, kernels, fusion', re: /memdex::vector/ },
  { name: 'index', what: 'documents, segments, merge, commit, load, recovery, blobs, storage', re: /memdex::(index|store|codec|storage|host)/ },
  { name: 'analysis', what: 'tokenizer, normalization, stop words, stemming calls', re: /memdex::analysis/ },
  { name: 'schema', what: 'schemas, their upgrade, dates', re: /memdex::schema/ },
  { name: 'wasm API', what: 'the `Engine` methods (src/wasm)', re: /memdex::wasm/ },
  { name: 'allocator', what: 'dlmalloc (std)', re: /dlmalloc/ },
  { name: 'deflate', what: 'miniz_oxide: packing and unpacking doc store pages and id blocks', re: /miniz_oxide/ },
  { name: 'std generic', what: 'monomorphised std code: sorts, hash maps, vectors, strings, iterators', re: new RegExp(`^<?${STD}::|^<\\[|^<&`) },
  { name: 'other', what: 'the rest (wasm tables, element segment, unnamed helpers)', re: /./ },
];

/** @param {string} name */
export function areaOf(name) {
  return AREAS.find((a) => a.re.test(name)).name;
}

/** A name without its hash, crate paths shortened: `Searcher::run (query::searcher::search)`. @param {string} name */
export function shortName(name) {
  const n = name.replace(/::h[0-9a-f]{16}$/, '').replace(/\[[0-9a-f]+\]/g, '');
  const m = /^memdex::([\w:]+)::<impl memdex::[\w:]*?(\w+)>::(.+)$/.exec(n);
  if (m) return `${m[2]}::${m[3]} (${m[1]})`;
  return n.replace(/^memdex::/, '').replace(/rust_stemmers::snowball::algorithms::/, 'stemmer ');
}

// What the largest items buy, by name.
const BUYS = [
  [/^data segment/, 'constant data (see the areas table)'],
  [/Searcher>::(run|ranked)$/, 'one ranked search pass: plan, scoring loop (MaxScore, conjunctions), top-k, totals, inlined'],
  [/Searcher>::search_ranked$/, 'a search: options, strategy `auto`, lenient field words, filters, listing, fallback'],
  [/Searcher>::search$/, 'the search entry: expansion, rerank windows (diversity, dedupe), paging'],
  [/Searcher>::snippets$/, '`highlight`: snippets and their windows'],
  [/Searcher>::make_hits$/, 'hits: stored fields, matched terms, explanation'],
  [/cached_search_options/, 'search options from JS (parse, check, cache by JSON text)'],
  [/read_segment|SegmentData::finish/, 'decoding a segment (load, import)'],
  [/LazyIndex::rounds/, 'a lazy read: its rounds, fetching the units asked for, assembling them into segments, the cache (LRU)'],
  [/open_lazy/, 'a lazy open: manifest, segment heads, packed ids, from JS storage'],
  [/layout::write/, 'writing a segment: its head and units cut into parts'],
  [/miniz_oxide::inflate/, 'inflating doc store pages and id blocks'],
  [/miniz_oxide::deflate/, 'deflating doc store pages and id blocks'],
  [/pages::(unpack|pack_pages)/, 'doc store pages: rows by shape, packed and unpacked'],
  [/prepare_json_floats|prepare_fields/, 'a document from JSON: fields, vectors, dates, keywords'],
  [/recover_index/, '`Memdex.recover`: a lost manifest rebuilt from the blobs'],
  [/from_loaded_as|load_index/, 'opening an index from storage'],
  [/merge_moved|merge::/, 'segment merges (compaction, commits)'],
  [/CommitHandle::execute|prepare_commit|persist::/, 'commits: segment and doc-store blobs, manifest swap, garbage collection'],
  [/Planner::expand/, 'prefix and fuzzy term expansion in the plan'],
  [/Planner::lower/, 'query plan from the parsed query'],
  [/ResolvedSchema::new/, 'a schema resolved for indexing'],
  [/analyze_dyn|Analyzer::group/, 'text analysis: tokens, folding, stop words, stems'],
  [/engine_suggest/, '`suggest`, inlined into its JS shim'],
  [/engine_rebuild|upgrade/, 'schema upgrades in place'],
  [/memdex_json::parse/, 'JSON parsing'],
  [/rust_stemmers::snowball::algorithms::(\w+)/, 'a Snowball stemmer'],
  [/suggest/, '`suggest`'],
  [/import_?snapshot|export_?snapshot/, '`import` / `export`'],
];

/** @param {string} name */
export function whatItBuys(name) {
  const bare = name.replace(/::h[0-9a-f]{16}$/, '');
  const hit = BUYS.find(([re]) => re.test(bare));
  return hit ? hit[1] : '';
}
