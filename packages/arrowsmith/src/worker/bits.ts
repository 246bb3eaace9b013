/**
 * Bit-packed buffers (validity, booleans) written at any bit offset of a shared bitmap.
 * Neighbouring tasks meet inside one 32-bit word, so the first and last words are
 * OR-ed atomically; the words in between belong to this task alone.
 */

/** Little-endian 32-bit word `w` of a bitmap (bytes past its end read as 0). */
function word(src: Uint8Array, w: number): number {
  const b = w * 4;
  if (b + 4 <= src.length) return src[b]! | (src[b + 1]! << 8) | (src[b + 2]! << 16) | (src[b + 3]! << 24);
  let x = 0;
  for (let i = 0; i < 4 && b + i < src.length; i++) x |= src[b + i]! << (8 * i);
  return x;
}

/** OR `n` bits of `src` (all set when undefined) into `dst` starting at bit `bit`. */
export function writeBits(src: Uint8Array | undefined, n: number, dst: Int32Array, bit: number): void {
  if (n <= 0) return;
  const first = bit >>> 5;
  const last = (bit + n - 1) >>> 5;
  const or = (i: number, v: number) => {
    if (v === 0) return;
    if (i === first || i === last) Atomics.or(dst, i, v);
    else dst[i] = dst[i]! | v;
  };
  const sh = bit & 31;
  for (let i = 0, w = 0; i < n; i += 32, w++) {
    let v = src ? word(src, w) : -1;
    const k = n - i;
    if (k < 32) v &= (1 << k) - 1;
    const at = (bit + i) >>> 5;
    or(at, v << sh);
    if (sh !== 0) or(at + 1, v >>> (32 - sh));
  }
}
