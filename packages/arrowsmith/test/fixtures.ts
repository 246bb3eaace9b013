/** Reading the fixture generators' JSON dumps exactly (int64 beyond 2^53 stays exact). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES = join(import.meta.dirname, '../../../fixtures');

/** JSON.parse, but integers too long for a double are kept as strings (compare with BigInt). */
export function parseExact(text: string): unknown {
  return JSON.parse(text.replace(/([[,:]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}

// biome-ignore lint/suspicious/noExplicitAny: the expected JSON is written by each format's reference reader, with its own shape
export function fixturePairs(dir: string, ext: string): { name: string; data: Uint8Array; json: any }[] {
  const root = join(FIXTURES, dir);
  return readdirSync(root)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => ({
      name: f,
      data: new Uint8Array(readFileSync(join(root, f))),
      json: parseExact(readFileSync(join(root, f.slice(0, -ext.length) + '.json'), 'utf8')),
    }));
}

export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
