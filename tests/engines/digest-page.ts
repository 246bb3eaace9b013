/**
 * The cross-engine check's page entry: `?simd=0|1`; fixtures listed in
 * `digest-fixtures/index.json`. Sets `window.__digest` (or `window.__digestError`).
 */
import * as arrowsmith from 'arrowsmith';
import { type Api, type Digest, digestAll } from './digest.js';

const w = window as unknown as { __digest?: Digest; __digestError?: string };
(async () => {
  const { simd } = await arrowsmith.init({ simd: new URLSearchParams(location.search).get('simd') === '1', baseUrl: new URL('./wasm/', location.href), formats: ['msgpack', 'tsfile', 'hdf5'] });
  const names = (await (await fetch('digest-fixtures/index.json')).json()) as string[];
  const list = names.map((name) => ({ name, bytes: async () => new Uint8Array(await (await fetch(`digest-fixtures/${name}`)).arrayBuffer()) }));
  w.__digest = { engine: navigator.userAgent, arch: 'browser', simd, items: await digestAll(arrowsmith as unknown as Api, list) };
})().catch((e) => (w.__digestError = String((e as Error)?.stack ?? e)));
