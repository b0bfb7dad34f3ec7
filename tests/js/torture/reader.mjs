// A torture-test reader process: opens the index again and again while
// writers commit, printing `open <size>` per successful open and
// `error <code> <message>` per failure (a CORRUPT here is a false alarm).
import { Memdex } from '../../../pkg/node.js';

const [dir] = process.argv.slice(2);
for (;;) {
  try {
    const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    process.stdout.write(`open ${index.size}\n`);
    index.free();
  } catch (err) {
    process.stdout.write(`error ${err.code} ${String(err.message).replace(/\n/g, ' ')}\n`);
  }
}
