/**
 * Where the package's .wasm files are, one literal `new URL(..., import.meta.url)` per
 * file: Vite, webpack 5 and Rollup (with an import-meta-assets plugin) see each literal,
 * emit the file and rewrite the URL, so a bundled app needs no configuration. Keep them
 * literal (no template strings) or bundlers stop seeing them. Functions, so that a URL is
 * only made for a module that is loaded.
 */
import type { Build, Format } from './instance.js';

export const WASM_FILES: { [F in Format]: { [B in Build]: () => URL } } = {
  msgpack: {
    simd: () => new URL('../../wasm/arrowsmith_msgpack_simd.wasm', import.meta.url),
    scalar: () => new URL('../../wasm/arrowsmith_msgpack_scalar.wasm', import.meta.url),
  },
  tsfile: {
    simd: () => new URL('../../wasm/arrowsmith_tsfile_simd.wasm', import.meta.url),
    scalar: () => new URL('../../wasm/arrowsmith_tsfile_scalar.wasm', import.meta.url),
  },
  hdf5: {
    simd: () => new URL('../../wasm/arrowsmith_hdf5_simd.wasm', import.meta.url),
    scalar: () => new URL('../../wasm/arrowsmith_hdf5_scalar.wasm', import.meta.url),
  },
};

/** The file of a format and build: in the folder `baseUrl` when given, else the package's own. */
export function wasmFile(format: Format, build: Build, baseUrl?: string | URL): URL {
  if (baseUrl === undefined) return WASM_FILES[format][build]();
  // A folder: `.../wasm` and `.../wasm/` both mean the folder.
  const folder = new URL(baseUrl, (globalThis as { location?: { href: string } }).location?.href);
  if (!folder.pathname.endsWith('/')) folder.pathname += '/';
  return new URL(`arrowsmith_${format}_${build}.wasm`, folder);
}
