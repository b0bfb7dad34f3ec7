// `patch`, `get(id, { vectors: true })` and the round trip of a stored
// document through `add`, compiled with `tsc --strict --noEmit`
// (tests/js/types.test.mjs). Every `@ts-expect-error` line must be an error.
import { Memdex, type Changes, type Input, type RemoteMemdex, type Stored } from 'memdex';

interface Memory {
  id: string;
  namespace?: string;
  title: string;
  text?: string;
  tags?: string[];
  timestamp?: Date;
  links?: { type: string; to: string }[];
  embedding?: Float32Array;
}

async function roundTrip(): Promise<void> {
  const index = await Memdex.open<Memory>({ schema: { embedding: { type: 'vector', dimensions: 3 } } });
  index.add({ id: 'm1', title: 'Deploy rule', timestamp: new Date(), embedding: new Float32Array([1, 0, 0]) });

  // What get returns goes back into add: dates as ISO strings, vectors as number arrays.
  const stored: Stored<Memory> | undefined = index.get('m1', { vectors: true });
  if (stored) {
    index.add(stored);
    index.add({ ...stored, text: 'Never deploy on Fridays' });
    index.addAll([stored]);
    await index.addMany([{ ...stored, id: 'm2' }]);
    await index.update([{ op: 'add', doc: stored }]);
    const vector: number[] | undefined = stored.embedding;
    const when: string | undefined = stored.timestamp;
    void [vector, when];
  }
  // Each field as declared or as stored.
  const input: Input<Memory> = { id: 'm3', title: 'x', timestamp: '2026-01-01T00:00:00Z', embedding: [0, 1, 0] };
  index.add(input);
  index.add({ id: 'm4', title: 'y', timestamp: new Date(), embedding: new Float32Array(3) });

  index.patch('m1', { text: 'Never deploy on Fridays', tags: null, embedding: new Float32Array([0, 1, 0]) });
  index.patch('m1', { timestamp: '2026-03-01', links: [{ type: 'SUPERSEDES', to: 'm0' }], namespace: null });
  const changes: Changes<Memory> = { embedding: [0, 0, 1] };
  index.patch('m1', changes);
  const plain: Stored<Memory> | undefined = index.get('m1');
  void plain;

  const remote: RemoteMemdex<Memory> = await Memdex.openInWorker<Memory>();
  const patched: void = await remote.patch('m1', { text: 'x' });
  const remoteDoc: Stored<Memory> | undefined = await remote.get('m1', { vectors: true });
  if (remoteDoc) await remote.add({ ...remoteDoc, text: 'y' });
  void [patched, remoteDoc];

  // An untyped index takes any field (the engine checks them).
  const any = await Memdex.open();
  any.patch('a', { text: 'x', tags: null, anything: 1 });
  const doc = any.get('a', { vectors: true });
  if (doc) any.add({ ...doc, text: 'y' });

  // --- misuse the compiler must reject ---
  // @ts-expect-error a required field cannot be removed
  index.patch('m1', { title: null });
  // @ts-expect-error patch cannot change the id
  index.patch('m1', { id: 'm9' });
  // @ts-expect-error undeclared field
  index.patch('m1', { colour: 'blue' });
  // @ts-expect-error wrong value type
  index.patch('m1', { tags: 'ops' });
  // @ts-expect-error get options: vectors is a boolean
  index.get('m1', { vectors: 'yes' });
  // @ts-expect-error unknown get option
  index.get('m1', { vector: true });
  // @ts-expect-error a stored vector is a number array, not a Float32Array
  const wrong: Float32Array | undefined = stored?.embedding;
  // @ts-expect-error a stored date is a string
  const wrongDate: Date | undefined = stored?.timestamp;
  // @ts-expect-error patch is synchronous on Memdex
  index.patch('m1', { text: 'x' }).then(() => {});
  void [wrong, wrongDate];
}

void roundTrip;
