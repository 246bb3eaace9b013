/** `arrowsmith/h5web` in Node: the Node entry's wasm loading (from the package's files), then the same exports. */
import '../node.js';

export * from './index.js';
