// The memory tools' cost in an agent's context: the `tools` of a real
// tools/list (official SDK client and server) in o200k_base tokens, counted
// by a real tokenizer (gpt-tokenizer), within 3,000 for every server setup.
// `node bench/js/mcp-tokens.mjs` prints the numbers beside an older revision's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { measure } from '../../bench/js/mcp-tokens.mjs';

const BUDGET = 3000;

test(`tools/list costs at most ${BUDGET} tokens (o200k_base), unpinned, pinned and read-only`, async () => {
  const sizes = await measure(fileURLToPath(new URL('../../pkg/', import.meta.url)));
  assert.equal(sizes.unpinned.tools, 7);
  assert.equal(sizes.readOnly.tools, 4);
  for (const [setup, { tokens, bytes }] of Object.entries(sizes)) {
    assert.ok(tokens <= BUDGET, `${setup}: ${tokens} tokens (${bytes} bytes) over the budget of ${BUDGET}`);
    // A tokenizer, not a character count: JSON runs about 4 bytes a token.
    assert.ok(tokens > bytes / 8 && tokens < bytes / 2, `${setup}: ${tokens} tokens for ${bytes} bytes`);
  }
});
