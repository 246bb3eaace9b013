// Optional exports of the arrowsmith package, looked up at run time so one demo build works
// with package builds that have (or not yet have) TsFile and HDF5 support.
import * as arrowsmith from 'arrowsmith';

export function exported<T = unknown>(name: string): T | undefined {
  const ns = arrowsmith as unknown as Record<string, unknown>;
  return name in ns && typeof ns[name] === 'function' ? (ns[name] as T) : undefined;
}
