export { withIndexLock, indexLockKind, IndexLockOptions } from '../storage.js';
