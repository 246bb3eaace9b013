/**
 * Byte hosts: what a wasm reader calls to copy a file's bytes as it reaches them (`readFrom`),
 * so a read copies only what it decodes, straight into wasm memory, and never restarts.
 */
import { isShared } from '../pool/protocol.js';
import { wholeBytes, type Source } from '../io/source.js';
import { toWasm } from './copy.js';

/** Copies a file's bytes into wasm memory on request (the wasm side's `ByteHost`). @internal */
export interface ByteHost {
  /** Copy the file's `len` bytes at `offset` to wasm memory at `ptr` (all of them, or throw). */
  readInto(offset: number, ptr: number, len: number): void;
}

/** The host of a source held in memory or a Node file; undefined for other sources. */
export function sourceHost(reader: Source, memory: WebAssembly.Memory): ByteHost | undefined {
  const bytes = wholeBytes(reader);
  if (!bytes) {
    const readInto = reader.readInto?.bind(reader);
    if (!readInto) return undefined;
    // A Node file: positioned reads straight into wasm memory (a fresh view each time,
    // since the read may have grown the memory).
    return { readInto: (offset, ptr, len) => readInto(offset, new Uint8Array(memory.buffer, ptr, len)) };
  }
  const shared = isShared(bytes.buffer);
  return {
    readInto: (offset, ptr, len) => {
      if (offset + len > bytes.length) throw new RangeError(`bytes ${offset}+${len} are past the end of the file`);
      toWasm(memory, bytes.subarray(offset, offset + len), ptr, shared);
    },
  };
}

/**
 * A host over ranges fetched elsewhere (flat [start, end, ...], their bytes one after
 * another: a pool job's, fetched by the main thread): a read copies from them only the
 * pages it decodes. A range they do not hold fails the copy, and the read asks the source
 * for it instead (NeedBytes).
 */
export function givenHost(flat: ArrayLike<number>, bytes: Uint8Array, memory: WebAssembly.Memory): ByteHost {
  const starts: number[] = [];
  let at = 0;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    starts.push(at);
    at += flat[i + 1]! - flat[i]!;
  }
  if (at > bytes.length) throw new RangeError(`arrowsmith: given bytes end before their ranges (${bytes.length} of ${at})`);
  const shared = isShared(bytes.buffer);
  return {
    readInto: (offset, ptr, len) => {
      let k = 0;
      while (k < starts.length && !(flat[2 * k]! <= offset && offset + len <= flat[2 * k + 1]!)) k++;
      if (k === starts.length) throw new RangeError(`arrowsmith: bytes ${offset}+${len} were not given`);
      const from = starts[k]! + offset - flat[2 * k]!;
      toWasm(memory, bytes.subarray(from, from + len), ptr, shared);
    },
  };
}
