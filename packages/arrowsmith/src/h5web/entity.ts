/**
 * h5web entities (groups with their children, datasets, committed datatypes, links) from
 * an open file's `list` and `describe`, in the form h5web's own providers give them.
 */
import { EntityKind, type Attribute, type ChildEntity, type ProvidedEntity, type UnresolvedEntity } from '@h5web/app';
import type { Hdf5Description, Hdf5Entry } from '../formats/hdf5/file.js';
import type { Metadata } from './metadata.js';
import { dtypeOf, shapeOf } from './dtype.js';

/** `/a/b` → `['/a', 'b']`. */
export function splitPath(path: string): [string, string] {
  const k = path.lastIndexOf('/');
  return [k <= 0 ? '/' : path.slice(0, k), path.slice(k + 1)];
}

const join = (parent: string, name: string) => `${parent === '/' ? '' : parent}/${name}`;

/** The HDF5 name index's order (bytes). */
const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Members in the order h5web's providers list them: creation order where the group tracks it, else by name. */
function ordered(entries: Hdf5Entry[]): Hdf5Entry[] {
  const all = [...entries];
  return all.every((e) => e.order !== undefined) && all.length ? all.sort((a, b) => a.order! - b.order!) : all.sort(byName);
}

function attributesOf(d: Hdf5Description): Attribute[] {
  const a = d.attributes.map((a) => ({ name: a.name, shape: shapeOf(a.dims), type: dtypeOf(a.type) }));
  return d.attributesInCreationOrder ? a : a.sort(byName);
}

/** A link that is not a hard link, as h5web shows it (it does not follow links itself). */
function unresolved(path: string, entry: Hdf5Entry | undefined): UnresolvedEntity {
  const link = entry?.link;
  return {
    name: splitPath(path)[1],
    path,
    attributes: [],
    kind: EntityKind.Unresolved,
    ...(link && { link: link.class === 'soft' ? { class: 'Soft' as const, path: link.path } : { class: 'External' as const, file: link.file, path: link.path } }),
  };
}

/** The entity at `path` described by `d`, without a group's children. */
function entityOf(path: string, d: Hdf5Description): ChildEntity {
  const base = { name: path === '/' ? '' : splitPath(path)[1], path, attributes: attributesOf(d) };
  if (d.kind === 'group') return { ...base, kind: EntityKind.Group };
  const type = d.type ? dtypeOf(d.type) : { class: 'Unknown' as never };
  if (d.kind === 'datatype') return { ...base, kind: EntityKind.Datatype, type, rawType: d.type };
  return {
    ...base,
    kind: EntityKind.Dataset,
    shape: shapeOf(d.dims),
    type,
    ...(d.chunks && { chunks: d.chunks }),
    filters: d.filters.map((f) => ({ id: f.id, name: f.name, cd_values: f.cdValues })),
    ...(d.virtualSources && { virtualSources: d.virtualSources }),
    rawType: d.type,
  };
}

/** One child of a group, as a group's `children` list it. */
async function childOf(file: Metadata, path: string, entry: Hdf5Entry, signal?: AbortSignal): Promise<ChildEntity> {
  if (entry.link || entry.kind === 'link') return unresolved(path, entry);
  return entityOf(path, await file.describe(path, { signal }));
}

/** The entity at `path`: a group with its children, a dataset, a datatype, or an unresolved link. */
export async function getEntity(file: Metadata, path: string, signal?: AbortSignal): Promise<ProvidedEntity> {
  if (path !== '/') {
    const [parent, name] = splitPath(path);
    const entry = (await file.list(parent, { signal })).find((e) => e.name === name);
    if (!entry) throw new Error(`${path}: no such entity`);
    if (entry.link || entry.kind === 'link') return unresolved(path, entry);
  }
  const d = await file.describe(path, { signal });
  const entity = entityOf(path, d);
  if (entity.kind !== EntityKind.Group) return entity as ProvidedEntity;
  const entries = ordered(await file.list(path, { signal }));
  const children = await Promise.all(entries.map((e) => childOf(file, join(path, e.name), e, signal)));
  return { ...entity, children };
}

/** Every path under `root` (groups first reached, then their members), as h5web searches them. */
export async function descendantPaths(file: Metadata, root: string, signal?: AbortSignal): Promise<string[]> {
  const out: string[] = [];
  // Each group once, by address: hard links can make cycles.
  const seen = new Set<number>();
  const walk = async (path: string) => {
    for (const e of ordered(await file.list(path, { signal }))) {
      const p = join(path, e.name);
      out.push(p);
      if (e.kind === 'group' && !e.link && e.addr !== undefined && !seen.has(e.addr)) {
        seen.add(e.addr);
        await walk(p);
      }
    }
  };
  await walk(root);
  return out;
}
