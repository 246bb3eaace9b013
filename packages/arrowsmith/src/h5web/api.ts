/**
 * `ArrowsmithApi`: an h5web data provider over `openHdf5`, so h5web reads a file by HTTP
 * ranges, a `File` or a `Blob`, fetching only what a view needs.
 */
import { DataProviderApi, type AttributeValues, type BuiltInExporter, type Dataset, type Entity, type ExportFormat, type ExportURL, type ProvidedEntity, type ValuesStoreParams } from '@h5web/app';
import { openHdf5, type Hdf5File, type Hdf5Options } from '../formats/hdf5/file.js';
import type { FileSource } from '../io/source.js';
import { descendantPaths, getEntity } from './entity.js';
import { metadataOf, type Metadata } from './metadata.js';
import { npyBlob } from './npy.js';
import { attrValue, getValue } from './value.js';

export interface ArrowsmithApiOptions extends Hdf5Options {
  /** The name h5web shows for the file. Default: the URL's last segment, the `File`'s name, else `file.h5`. */
  filepath?: string;
}

/** The name of a source as h5web shows it. */
function nameOf(source: FileSource): string {
  if (typeof File !== 'undefined' && source instanceof File) return source.name;
  if (typeof source === 'string' || source instanceof URL) {
    const path = new URL(String(source), 'file:///').pathname;
    return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) || 'file.h5';
  }
  return 'file.h5';
}

export class ArrowsmithApi extends DataProviderApi {
  readonly #file: Promise<Hdf5File>;
  readonly #meta: Promise<Metadata>;

  /** Opens `source` (a URL read by HTTP ranges, a `File`, a `Blob` or bytes) with `openHdf5`'s options. */
  constructor(source: FileSource, options: ArrowsmithApiOptions = {}) {
    const { filepath, ...open } = options;
    super(filepath ?? nameOf(source));
    this.#file = openHdf5(source, open);
    this.#meta = this.#file.then(metadataOf);
    // A failed open surfaces from the first call that needs the file.
    this.#meta.catch(() => {});
  }

  /** The open file (for reads beside h5web: `read`, `batches`, Arrow tables). */
  file(): Promise<Hdf5File> {
    return this.#file;
  }

  override async getEntity(path: string): Promise<ProvidedEntity> {
    return getEntity(await this.#meta, path);
  }

  override async getValue(params: ValuesStoreParams, signal?: AbortSignal): Promise<unknown> {
    return getValue(await this.#file, params.dataset, params.selection, signal);
  }

  override async getAttrValues(entity: Entity): Promise<AttributeValues> {
    const [columns, described] = await Promise.all([(await this.#file).attrColumns(entity.path), (await this.#meta).describe(entity.path)]);
    const types = new Map(described.attributes.map((a) => [a.name, a.type]));
    return Object.fromEntries(entity.attributes.map((a) => [a.name, attrValue(a, types.get(a.name)!, columns.get(a.name))]));
  }

  override getExportURL(format: ExportFormat, dataset: Dataset, selection?: string, builtInExporter?: BuiltInExporter): ExportURL | undefined {
    if (builtInExporter) return async () => new Blob([builtInExporter()]);
    if (format === 'npy') return npyBlob(dataset, selection, async () => getValue(await this.#file, dataset, selection));
    return undefined;
  }

  override async getSearchablePaths(path: string): Promise<string[]> {
    return descendantPaths(await this.#meta, path);
  }

  /** Closes the file (and the files its links opened). */
  async close(): Promise<void> {
    await (await this.#file.catch(() => undefined))?.close();
  }
}
