// `memdex/lexical`: the same API as 'memdex' over the lexical build
// (English only; `vector`, `hybrid`, `expand`, `related` and `embed`
// searches fail with USAGE naming 'memdex').
export * from './index.js';
