export { indexedDBStorage, IndexedDBStorage, IndexedDBStorageOptions, StorageAdapter } from '../storage.js';
