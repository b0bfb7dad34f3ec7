// `memdex/lexical`: the same API as 'memdex' over the lexical build
// (English only; `vector`, `hybrid`, `expand`, `diversity`, `dedupe`,
// `related`, `recover`, `migrate` and `embed` searches fail with USAGE
// naming 'memdex').
export * from './index.js';
