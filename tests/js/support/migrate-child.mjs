// A migrate run that SIGKILLs itself: `node migrate-child.mjs <dir> <killAfter> <to>`
// runs Memdex.migrate on the fs index `memories` in <dir> (into the index
// named <to>, or in place when <to> is `memories`) under a new analyzer,
// and kills its own process right after its <killAfter>-th storage write
// (put, swap or delete; 0 = before the first). Without a kill it prints
// `writes <n>`: how many writes the whole migration made.
import { Memdex } from '../../../pkg/node.js';
import { fsStorage } from '../../../pkg/storage/fs.js';

const [dir, killAfter, to] = process.argv.slice(2);
const limit = Number(killAfter);
const fs = fsStorage(dir);
let writes = 0;
const counted = (/** @type {(...args: any[]) => Promise<any>} */ op) => async (/** @type {any[]} */ ...args) => {
  if (writes >= limit) process.kill(process.pid, 'SIGKILL');
  const result = await op(...args);
  writes++;
  return result;
};
const storage = {
  get: fs.get.bind(fs),
  list: fs.list.bind(fs),
  lock: fs.lock.bind(fs),
  put: counted(fs.put.bind(fs)),
  swap: counted(fs.swap.bind(fs)),
  delete: counted(fs.delete.bind(fs)),
};
await Memdex.migrate({ from: { storage, name: 'memories' }, to: { name: to, language: 'none', schema: { area: 'keyword' } } });
if (writes >= limit) process.kill(process.pid, 'SIGKILL');
process.stdout.write(`writes ${writes}\n`);
