// Copies a wasm module without its name section, producers section and
// debug info (custom sections only; code and data bytes untouched), so the
// shipped wasm is byte for byte the size report's module minus its names.
//
//   node scripts/wasm-strip.mjs IN.wasm OUT.wasm
import { readFileSync, writeFileSync } from 'node:fs';

const DROP = (name) => name === 'name' || name === 'producers' || name.startsWith('.debug') || name === 'sourceMappingURL';

/** An unsigned LEB128 at `at`: [value, next offset]. @param {Uint8Array} b @param {number} at */
function leb(b, at) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = b[at++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
  }
}

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node scripts/wasm-strip.mjs IN.wasm OUT.wasm');
  process.exit(2);
}
const b = readFileSync(input);
const kept = [b.subarray(0, 8)];
for (let at = 8; at < b.length; ) {
  const start = at;
  const id = b[at++];
  const [size, body] = leb(b, at);
  at = body + size;
  if (id === 0) {
    const [len, name] = leb(b, body);
    if (DROP(b.subarray(name, name + len).toString('utf8'))) continue;
  }
  kept.push(b.subarray(start, at));
}
writeFileSync(output, Buffer.concat(kept));
