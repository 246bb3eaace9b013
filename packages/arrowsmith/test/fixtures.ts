/** Reading the fixture generators' JSON dumps exactly (int64 beyond 2^53 stays exact). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES = join(import.meta.dirname, '../../../fixtures');

import { parseExact } from './compare.js';

export { parseExact };

// biome-ignore lint/suspicious/noExplicitAny: the expected JSON is written by each format's reference reader, with its own shape
export function fixturePairs(dir: string, ...exts: string[]): { name: string; data: Uint8Array; json: any }[] {
  const root = join(FIXTURES, dir);
  const files = readdirSync(root);
  const ext = (f: string) => f.slice(f.lastIndexOf('.'));
  return files
    .filter((f) => exts.includes(ext(f)) && files.includes(f.slice(0, -ext(f).length) + '.json'))
    .sort()
    .map((f) => ({
      name: f,
      data: new Uint8Array(readFileSync(join(root, f))),
      json: parseExact(readFileSync(join(root, f.slice(0, -ext(f).length) + '.json'), 'utf8')),
    }));
}

export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
