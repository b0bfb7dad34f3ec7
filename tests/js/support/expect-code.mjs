// The shared suites' `expectCode` (Node and Chromium load this file alike).

/**
 * `expectCode(fn, code, words)`: awaits `fn` and asserts it failed with a
 * `MemdexError` of `code` whose message matches `words` (a RegExp, or
 * strings it must each contain); returns the error.
 */
export function codeExpecter(MemdexError, assert) {
  return async function expectCode(fn, code, words) {
    let error;
    try {
      await fn();
    } catch (err) {
      error = err;
    }
    assert.ok(error instanceof MemdexError, `expected a MemdexError ${code}, got ${error}`);
    assert.equal(error.code, code, error.message);
    if (words instanceof RegExp) assert.match(error.message, words);
    else for (const w of words ?? []) assert.ok(error.message.includes(w), `"${error.message}" names ${w}`);
    return error;
  };
}
