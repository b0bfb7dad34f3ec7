export { fsStorage, FsStorage, StorageAdapter } from '../storage.js';
