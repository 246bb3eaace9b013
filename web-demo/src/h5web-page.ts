// h5web.html: the h5web viewer alone, on `?url=` (read by HTTP ranges: a file of any size
// opens at once; `&path=` opens it at that entity) or on a file chosen or dropped.
import { mountViewer, type ViewerSource } from './h5web-view.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let unmount: (() => void) | undefined;

async function show(source: ViewerSource, label: string, path?: string) {
  unmount?.();
  $('viewer-name').textContent = label;
  $('viewer-error').hidden = true;
  try {
    unmount = await mountViewer($('viewer'), source, path);
  } catch (e) {
    $('viewer-error').hidden = false;
    $('viewer-error').textContent = `Could not open ${label}: ${String((e as Error)?.message ?? e)}`;
  }
}

const params = new URLSearchParams(location.search);
const url = params.get('url');
if (url) void show({ url: new URL(url, location.href).href }, url, params.get('path') ?? undefined);
$<HTMLInputElement>('viewer-file').onchange = (ev) => {
  const f = (ev.target as HTMLInputElement).files?.[0];
  if (f) void show({ file: f }, f.name);
};
document.addEventListener('dragover', (ev) => ev.preventDefault());
document.addEventListener('drop', (ev) => {
  ev.preventDefault();
  const f = ev.dataTransfer?.files?.[0];
  if (f) void show({ file: f }, f.name);
});
