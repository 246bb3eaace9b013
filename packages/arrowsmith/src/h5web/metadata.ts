/**
 * An open file's listings and descriptions, each read once: the file does not change, and
 * h5web asks for the same headers again (a group's children, then each child, then its
 * attributes), each of which would be fetched again over HTTP.
 */
import type { Hdf5Description, Hdf5Entry, Hdf5File } from '../formats/hdf5/file.js';

export type Metadata = Pick<Hdf5File, 'list' | 'describe'>;

export function metadataOf(file: Hdf5File): Metadata {
  const lists = new Map<string, Promise<Hdf5Entry[]>>();
  const descriptions = new Map<string, Promise<Hdf5Description>>();
  /** `get` once per path; a failure (an abort, a network error) is not kept. */
  const once = <T>(map: Map<string, Promise<T>>, path: string, get: () => Promise<T>): Promise<T> => {
    let p = map.get(path);
    if (!p) {
      p = get();
      map.set(path, p);
      p.catch(() => map.delete(path));
    }
    return p;
  };
  return {
    // Without the caller's signal: a read shared by several callers is not one caller's to stop.
    list: (path = '/') => once(lists, path, () => file.list(path)),
    describe: (path) => once(descriptions, path, () => file.describe(path)),
  };
}
