// Shared by the behaviour suite's areas: the sample memories and the context
// every area registers its cases with. Plain ES module with relative imports
// only, so the browser runner can load it from /__tests__/js/behaviour/.

export const MEMORIES = [
  { id: 'm1', namespace: 'agent:coder', kind: 'rule', title: 'Never deploy on Fridays', text: 'Deployments are frozen from Friday noon until Monday.', timestamp: '2026-01-10T09:00:00Z' },
  { id: 'm2', namespace: 'agent:coder', kind: 'decision', title: 'Use PostgreSQL for the billing service', text: 'We chose PostgreSQL over MySQL because of JSONB support and row level security.', timestamp: '2026-02-01T12:00:00Z' },
  { id: 'm3', namespace: 'agent:ops', kind: 'observation', title: 'Disk usage alert on db-2', text: 'The database host db-2 ran out of disk after the nightly backup job.', timestamp: '2026-03-05T03:00:00Z' },
  { id: 'm4', namespace: 'agent:ops', kind: 'rule', title: 'Rotate credentials monthly', text: 'API keys and database passwords are rotated on the first Monday of every month.', timestamp: '2026-03-20T10:00:00Z' },
  { id: 'm5', namespace: 'agent:writer', kind: 'note', title: 'Style guide', text: 'Prefer short sentences. Use <code> tags & avoid jargon in release notes.', timestamp: '2026-04-01T08:00:00Z' },
];

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The suite's options plus its helpers: t(name, fn) registers a case under
 * the runner's label, expectCode(fnOrPromise, code) awaits a MemdexError with
 * that code (or one of an array) and a message that explains, fresh(extra)
 * opens an empty index (autoCommit off) holding MEMORIES.
 */
export function suiteContext({ Memdex, MemdexError, makeStorage, test, assert, label = '' }) {
  const t = (name, fn) => test(`${label}${label ? ': ' : ''}${name}`, fn);

  async function expectCode(fnOrPromise, code) {
    let error;
    try {
      await (typeof fnOrPromise === 'function' ? fnOrPromise() : fnOrPromise);
    } catch (err) {
      error = err;
    }
    assert.ok(error, `expected a ${code} error, nothing was thrown`);
    assert.ok(error instanceof MemdexError, `expected a MemdexError, got ${error?.name}: ${error?.message}`);
    const codes = [code].flat();
    assert.ok(codes.includes(error.code), `expected code ${codes.join(' or ')}, got ${error.code}: ${error.message}`);
    assert.ok(error.message.length > 10, 'the message explains');
    return error;
  }

  const fresh = async (extra = {}) => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false, ...extra });
    index.addAll(MEMORIES);
    return index;
  };

  return { Memdex, MemdexError, makeStorage, assert, t, expectCode, fresh };
}
