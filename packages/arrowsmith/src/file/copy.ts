/** Copies into wasm memory, fast out of shared memory at any alignment. */

/** Staging for copies out of shared memory (see `copyMisaligned`). */
const STAGE = 1 << 20;
let stage: Uint8Array | undefined;

/**
 * Copy out of a SharedArrayBuffer to a target of another alignment. V8 copies shared memory
 * with relaxed atomics, a word at a time only when source and target share their alignment
 * mod 8 and byte by byte otherwise (measured ~8x slower: 1.2 ms against 0.15 ms per 4 MB).
 * Pool workers read files from shared memory at any offset, so this is their hot path:
 * stage through plain memory at the source's alignment (two fast copies), 1 MiB at a time.
 */
function copyMisaligned(src: Uint8Array, dst: Uint8Array): void {
  stage ??= new Uint8Array(STAGE + 8);
  const k = src.byteOffset & 7;
  for (let at = 0; at < src.length; at += STAGE) {
    const n = Math.min(STAGE, src.length - at);
    stage.set(src.subarray(at, at + n), k);
    dst.set(stage.subarray(k, k + n), at);
  }
}

/**
 * Copy `src` to wasm memory at `ptr` (a fresh view each time: a read may have grown the
 * memory since the last copy); out of shared memory at another alignment, staged.
 */
export function toWasm(memory: WebAssembly.Memory, src: Uint8Array, ptr: number, shared: boolean): void {
  const dst = new Uint8Array(memory.buffer, ptr, src.length);
  if (shared && src.length >= 64 && ((src.byteOffset - ptr) & 7) !== 0) copyMisaligned(src, dst);
  else dst.set(src);
}
