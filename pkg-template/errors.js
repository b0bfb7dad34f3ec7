// @ts-check
// The error table of memdex: every `code` a caller can see, from any surface
// (the package's MemdexError, the memdex Worker's HTTP errors, the MCP
// tools' error results), with its HTTP status, what it means and what to do.
// This table is the one source: worker/src/errors.js takes its statuses from
// it, docs/ERRORS.md is generated from it (`node scripts/gen-errors.mjs`),
// and tests/js/errors-table.test.mjs fails when src/error.rs, index.d.ts
// (`MemdexErrorCode`), the code literals thrown in the JS sources or the
// docs drift from it. Codes are public API: never rename one.
//
// `from` says who raises it: `engine` (src/error.rs `Error::code`),
// `package` (the JS layer), `http` (the memdex Worker only), `tools` (the
// MCP/agent tools only).

/**
 * @typedef {{ status: number, from: 'engine' | 'package' | 'http' | 'tools', meaning: string, action: string }} ErrorInfo
 */

/** @type {Readonly<Record<string, Readonly<ErrorInfo>>>} */
export const ERRORS = Object.freeze({
  INVALID_QUERY: {
    status: 400,
    from: 'engine',
    meaning: 'A query could not be parsed (`syntax: \'strict\'` only) or is not a string.',
    action: 'Fix the query at the position the message gives, or search with the lenient parser (the default).',
  },
  SCHEMA: {
    status: 400,
    from: 'engine',
    meaning: 'A document, filter or schema does not fit the schema (unknown field, wrong type, missing id), or a schema changes a stored index in a way its documents cannot take in place (`data.change`: analyzer, language, type, stored, dimensions, metric).',
    action: 'Fix the field the message names (in the document it names), or declare the field (opening with a schema that adds it upgrades the index); rebuild with Memdex.migrate for the other changes.',
  },
  NOT_FOUND: {
    status: 404,
    from: 'engine',
    meaning: 'A referenced document, index or route does not exist.',
    action: 'Check the id (and namespace); list what exists.',
  },
  STORAGE: {
    status: 503,
    from: 'engine',
    meaning: 'The storage adapter failed (quota, I/O, lock); nothing was committed. `reason` carries the adapter\'s own code.',
    action: 'Retry the operation; if it persists, free space or check the storage the `reason` names.',
  },
  CORRUPT: {
    status: 500,
    from: 'engine',
    meaning: 'Stored bytes failed their checksum or do not decode.',
    action: 'Restore from a snapshot (`export()`), rebuild the index, or `Memdex.recover()` a lost manifest.',
  },
  CONFLICT: {
    status: 409,
    from: 'engine',
    meaning: 'Another writer committed first (the manifest generation moved).',
    action: 'Call `reload()` and re-apply your writes, or make them in `update(fn)`, which does that for you.',
  },
  VERSION: {
    status: 500,
    from: 'engine',
    meaning: 'Stored data was written by a format version this build cannot read.',
    action: 'Upgrade memdex, or rebuild the index.',
  },
  LIMIT: {
    status: 413,
    from: 'engine',
    meaning: 'An input exceeds a documented limit (query bytes, `offset + limit`, id or field size, nesting depth, a strict query\'s cost budget; HTTP: body, rate, quota).',
    action: 'Send less: the message names the limit and its value (HTTP: `limit` names the setting; the status is 413, 400, 403 or 429).',
  },
  USAGE: {
    status: 400,
    from: 'engine',
    meaning: 'The API was used the wrong way: an unknown option, a wrong argument or option type, `new Memdex()`.',
    action: 'Fix the option or argument the message names; it lists what is accepted.',
  },
  LOCKED: {
    status: 503,
    from: 'package',
    meaning: 'Another live writer process held the index\'s writer lock (fs storage) for longer than the lock wait (10 s by default); nothing was written. `holder` names it: `{ pid, host, since }`.',
    action: 'Retry later, or stop the process `holder` names; raise `lockWaitMs` of `fsStorage` for long commits.',
  },
  WASM_LOAD: {
    status: 500,
    from: 'package',
    meaning: 'The .wasm file, or the worker script of `openInWorker`, could not be fetched, read or instantiated; the message names the URL tried.',
    action: 'Serve the file the message names (memdex-english_bg.wasm, memdex_bg.wasm, worker.js) at that URL, or pass `wasm` to `Memdex.open`; the package README\'s "Entry points" says how per bundler.',
  },
  CLOSED: {
    status: 503,
    from: 'package',
    meaning: 'The index was closed.',
    action: 'Open it again with `Memdex.open()`.',
  },
  EMBED: {
    status: 502,
    from: 'package',
    meaning: 'The embedder (`embed` of `Memdex.open`, `memdex mcp --embed`, the Worker\'s `env.AI`) threw, or answered something other than one vector of finite numbers per text that fits the vector field; nothing of the call was written. `cause` carries the embedder\'s own error.',
    action: 'Fix the embedder (its error is `err.cause`) or the field\'s `dimensions`, then repeat the call; a document that carries its own vector is never embedded.',
  },
  INTERNAL: {
    status: 500,
    from: 'package',
    meaning: 'The engine hit a bug (a wasm trap) or the worker died.',
    action: 'Discard the index object and reopen it; report the bug.',
  },
  BAD_REQUEST: {
    status: 400,
    from: 'http',
    meaning: 'The HTTP request is malformed (URL, JSON, NDJSON, content type, parameter types); nothing was changed.',
    action: 'Fix the request as the message says.',
  },
  UNAUTHORIZED: {
    status: 401,
    from: 'http',
    meaning: 'No API key, or an unknown one.',
    action: 'Send `Authorization: Bearer <key>` with a valid key.',
  },
  FORBIDDEN: {
    status: 403,
    from: 'http',
    meaning: 'The API key has no access to the namespace, or lacks the role.',
    action: 'Use a key with access to this namespace and role.',
  },
  EXISTS: {
    status: 409,
    from: 'tools',
    meaning: 'memory_store: a memory with this id already exists.',
    action: 'Pass `replace: true`, use memory_update, or omit the id to store a new memory.',
  },
});

/** The HTTP status of a code (500 for an unknown one). */
export const statusOf = (/** @type {string} */ code) => ERRORS[code]?.status ?? 500;

/** The table as Markdown (docs/ERRORS.md's body). */
export function errorsMarkdown() {
  const cell = (/** @type {string} */ s) => s.replace(/\|/g, '\\|');
  const rows = Object.entries(ERRORS).map(
    ([code, e]) => `| \`${code}\` | ${e.status} | ${e.from} | ${cell(e.meaning)} | ${cell(e.action)} |`,
  );
  return [
    '| code | HTTP | raised by | meaning | what to do |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
