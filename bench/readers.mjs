// The readers the cold benchmarks time, one definition for Node and for Chromium (bundled
// by esbuild with code splitting: each library is its own chunk, loaded by `load`).
// A reader is three steps, timed separately by bench/cold-child.mjs and bench/cold-page.mjs:
//   load(opts)             import the library (JS parse and evaluation)
//   init(lib, opts)        what must run before the first read (compile + instantiate wasm)
//   read(lib, bytes, c)    one read of a case → rows (the file's bytes are in memory)
// `c` is the case: { path } for HDF5, { query } for TsFile, { options, stream } for MessagePack
// (our options; `stream`: concatenated values, which the peers read with their multi-value
// verbs), { q } for Parquet.
import { PARQUET_READERS } from './parquet-readers.mjs';

const arrowsmith = (format) => ({
  // `opts.pkg`: another build of the package's Node entry (bench/cold-ab.mjs, Node only).
  // (A literal specifier otherwise, so that esbuild bundles the package into the page.)
  load: (opts) => (opts.pkg ? import(opts.pkg) : import('arrowsmith')),
  // `opts.warm`: init({ warm: true }) and wait for its idle-time warm-up (the "warm start" rows:
  // a page that inits at load and reads when the user drops a file). A ref'd timer keeps
  // Node up meanwhile (the warm-up's own timers never do).
  init: async (m, opts) => {
    const { warmed } = await m.init({ formats: [format], simd: opts.simd, warm: opts.warm });
    if (!opts.warm) return;
    const keep = setInterval(() => {}, 1000);
    await warmed;
    // `opts.idle` (bench/cold-ab.mjs): idle time between the warm-up and read 1.
    if (opts.idle) await new Promise((r) => setTimeout(r, opts.idle));
    clearInterval(keep);
  },
});

export const READERS = {
  parquet: PARQUET_READERS,
  msgpack: {
    arrowsmith: {
      ...arrowsmith('msgpack'),
      read: (m, bytes, c) => m.decodeMsgpack(bytes, c.options).numRows,
    },
    msgpackr: {
      load: () => import('msgpackr'),
      init: () => {},
      read: (m, bytes, c) => count(c.stream ? m.unpackMultiple(bytes) : m.unpack(bytes)),
    },
    '@msgpack/msgpack': {
      load: () => import('@msgpack/msgpack'),
      init: () => {},
      read: (m, bytes, c) => count(c.stream ? [...m.decodeMulti(bytes)] : m.decode(bytes)),
    },
  },
  tsfile: {
    arrowsmith: {
      ...arrowsmith('tsfile'),
      read: async (m, bytes, c) => {
        const f = await m.openTsFile(bytes);
        try {
          return (await f.read({ table: 'bench_table', ...c.query })).numRows;
        } finally {
          f.close();
        }
      },
    },
  },
  hdf5: {
    arrowsmith: {
      ...arrowsmith('hdf5'),
      read: async (m, bytes, c) => {
        const f = await m.openHdf5(bytes);
        try {
          return (await f.read(c.path)).numRows;
        } finally {
          f.close();
        }
      },
    },
    h5wasm: {
      // The browser bundle maps 'h5wasm/node' to 'h5wasm' (bench/coldwarm.mjs).
      load: async () => ({ h5wasm: (await import('h5wasm/node')).default }),
      // Emscripten compiles and instantiates the HDF5 library here.
      init: async (lib) => {
        lib.FS = (await lib.h5wasm.ready).FS;
      },
      read: (lib, bytes, c) => {
        // h5wasm reads from its in-memory file system: writing the bytes there is part of its open.
        lib.FS.writeFile('/cold.h5', bytes);
        const f = new lib.h5wasm.File('/cold.h5', 'r');
        try {
          return count(f.get(c.path.slice(1)).value);
        } finally {
          f.close();
          lib.FS.unlink('/cold.h5');
        }
      },
    },
    jsfive: {
      load: () => import('jsfive'),
      init: () => {},
      read: (m, bytes, c) => {
        const b = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
        return count(new m.File(b, 'cold.h5').get(c.path.slice(1)).value);
      },
    },
  },
};

/**
 * Warm reads after the cold ones, in the same process or page: at least `warmRuns` (5) and on
 * for `warmMs` (0.5 s); a slow reader stops after 5 s, its warm figure then has fewer reads.
 */
export async function warmReads(reader, lib, bytes, spec) {
  const warm = [];
  const t0 = performance.now();
  for (let e = 0; warm.length < 100 && (e < (spec.warmMs ?? 500) || (warm.length < (spec.warmRuns ?? 5) && e < 5000)); e = performance.now() - t0) {
    const t = performance.now();
    await reader.read(lib, bytes, spec.case ?? {});
    warm.push(performance.now() - t);
  }
  return warm;
}

function count(v) {
  return v && typeof v.length === 'number' ? v.length : 1;
}
