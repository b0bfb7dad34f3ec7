export { memoryStorage, MemoryStorage, StorageAdapter } from '../storage.js';
