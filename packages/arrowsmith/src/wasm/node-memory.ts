/** Node's output memory: copies out of wasm memory into buffers that are not zeroed first. */
import { platform } from './instance.js';

/** Make `ownedBytes`/`ownedCopy` allocate with `Buffer.allocUnsafeSlow` (an ArrayBuffer each). */
export function useNodeMemory(): void {
  platform.allocBytes = (n) => {
    const b = Buffer.allocUnsafeSlow(n);
    return new Uint8Array(b.buffer, b.byteOffset, n);
  };
}
