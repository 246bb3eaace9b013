// What the browser holds in memory, seen from the test process (Linux /proc).
import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory (bytes) of this process's descendants: the browser and its renderers. */
export function descendantsRss() {
  const children = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(pid)]);
    } catch {
      // gone meanwhile
    }
  }
  let rss = 0;
  const todo = [...(children.get(process.pid) ?? [])];
  while (todo.length) {
    const pid = todo.pop();
    todo.push(...(children.get(pid) ?? []));
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) rss += Number(m[1]) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return rss;
}
