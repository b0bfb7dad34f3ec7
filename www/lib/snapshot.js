// Snapshot files: `export()` is the whole index, schema included, as one
// byte array; importing one replaces the page's index (Store.replaceWith
// imports it under a new name and switches only once it is committed).

/**
 * Downloads the index as a `.memdex` file; returns its size in bytes.
 * @param {import('./store.js').Store} store
 */
export function downloadSnapshot(store) {
  // A copy out of wasm memory: an ArrayBuffer, never a SharedArrayBuffer.
  const bytes = /** @type {Uint8Array<ArrayBuffer>} */ (store.index.export());
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `memdex-${store.name}-${new Date().toISOString().slice(0, 10)}.memdex`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return bytes.byteLength;
}

/**
 * Replaces the index with the snapshot in `file`.
 * @param {import('./store.js').Store} store
 * @param {File} file
 */
export async function importSnapshot(store, file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  await store.replaceWith(bytes);
  return bytes.byteLength;
}
