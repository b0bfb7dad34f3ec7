export { kvStorage, KVStorage, KVStorageOptions, KVNamespaceLike, StorageAdapter } from '../storage.js';
