// What the browser holds in memory, seen from the test process (Linux /proc).
import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory (bytes) of this process's descendants: the browser and its renderers. */
export function descendantsRss() {
  return processesRss().reduce((a, p) => a + p.rss, 0);
}

/** This process's descendants with their resident memory and kind (Chromium's --type). */
export function processesRss() {
  const children = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(pid)]);
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const todo = [...(children.get(process.pid) ?? [])];
  while (todo.length) {
    const pid = todo.pop();
    todo.push(...(children.get(pid) ?? []));
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      const type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'browser';
      if (m) out.push({ pid, type, rss: Number(m[1]) * 1024 });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * JS heap of the page's workers (where the demo decodes), by CDP: Runtime.getHeapUsage sent
 * to each worker target (Chromium has no performance.memory in workers).
 */
export async function workerHeaps(browser) {
  const cdp = await browser.newBrowserCDPSession();
  const waiting = new Map();
  let seq = 0;
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    waiting.get(m.id)?.(m);
  });
  const sessions = new Map();
  return async () => {
    const { targetInfos } = await cdp.send('Target.getTargets');
    let used = 0;
    let backing = 0;
    const workers = [];
    for (const t of targetInfos.filter((x) => x.type === 'worker')) {
      if (!sessions.has(t.targetId)) sessions.set(t.targetId, (await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false })).sessionId);
      const id = ++seq;
      const reply = new Promise((r) => waiting.set(id, r));
      await cdp.send('Target.sendMessageToTarget', { sessionId: sessions.get(t.targetId), message: JSON.stringify({ id, method: 'Runtime.getHeapUsage' }) });
      const m = await Promise.race([reply, sleep(5000).then(() => ({}))]);
      waiting.delete(id);
      used += m.result?.usedSize ?? 0;
      backing += m.result?.backingStorageSize ?? 0;
      workers.push({ url: t.url, used: m.result?.usedSize ?? 0, backing: m.result?.backingStorageSize ?? 0 });
    }
    return { used, backing, workers };
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
