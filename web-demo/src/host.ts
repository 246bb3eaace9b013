// What machine the numbers come from: CPU architecture, cores, browser, wasm SIMD, isolation.
import { simdSupported } from 'arrowsmith';

export interface HostInfo {
  /** "ARM", "x86", or "unknown". */
  arch: string;
  /** How arch was found: the high-entropy client hints, a guess from the user agent, or not at all. */
  archSource: 'client hints' | 'user agent' | 'unknown';
  bitness?: string;
  platform?: string;
  platformVersion?: string;
  cores: number;
  browser: string;
  /** The browser engine: Blink, Gecko or WebKit (JavaScriptCore), from the user agent. */
  engine?: string;
  /** Operating system and version, as far as the browser tells. */
  os?: string;
  /**
   * The run was under CPU emulation (e.g. qemu-user): its results check correctness only and
   * are never shown as that architecture's speed. Set by the page's `?emulated=1` or by the
   * tool that wrote the results.
   */
  emulated?: boolean;
  wasmSimd: boolean;
  crossOriginIsolated: boolean;
  userAgent: string;
}

interface UAData {
  brands?: { brand: string; version: string }[];
  platform?: string;
  getHighEntropyValues?(hints: string[]): Promise<Record<string, unknown>>;
}

function browserName(ua: UAData | undefined, full?: { brand: string; version: string }[]): string {
  const list = full ?? ua?.brands ?? [];
  const b = list.find((x) => !/not.?a.?brand/i.test(x.brand) && x.brand !== 'Chromium') ?? list.find((x) => !/not.?a.?brand/i.test(x.brand));
  if (b) return `${b.brand} ${b.version}`;
  const s = navigator.userAgent;
  const m = /(Firefox|Edg|OPR|Chrome|Version)\/([\d.]+)/.exec(s);
  if (!m) return s;
  const name = m[1] === 'Version' ? 'Safari' : m[1] === 'Edg' ? 'Edge' : m[1] === 'OPR' ? 'Opera' : m[1]!;
  return `${name} ${m[2]}`;
}

export function engineFromUA(ua: string): string {
  if (/\bGecko\/\d/.test(ua) && /Firefox\//.test(ua)) return 'Gecko';
  if (/Chrome\/|Chromium\/|Edg\//.test(ua)) return 'Blink';
  if (/AppleWebKit\//.test(ua)) return 'WebKit';
  return 'unknown';
}

function osFromUA(ua: string, platform?: string, version?: string): string {
  const m = /\((?:[^;)]*;\s*)?((?:Windows NT|Mac OS X|Android|CrOS|Linux|iPhone OS|CPU OS)[^;)]*)/.exec(ua);
  const fromUa = m?.[1]?.replace(/_/g, '.').trim();
  return [platform, version].filter(Boolean).join(' ') || fromUa || 'unknown';
}

export function archFromText(s: string): string | undefined {
  if (/\b(arm|aarch64|arm64)\b/i.test(s)) return 'ARM';
  if (/\b(x86_64|x86-64|x64|amd64|win64|wow64|i[3-6]86|x86)\b/i.test(s)) return 'x86';
  return undefined;
}

export async function hostInfo(): Promise<HostInfo> {
  const ua = (navigator as unknown as { userAgentData?: UAData }).userAgentData;
  const info: HostInfo = {
    arch: 'unknown',
    archSource: 'unknown',
    cores: navigator.hardwareConcurrency || 0,
    browser: browserName(ua),
    wasmSimd: simdSupported(),
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    userAgent: navigator.userAgent,
    platform: ua?.platform,
    engine: engineFromUA(navigator.userAgent),
  };
  if (new URLSearchParams(globalThis.location?.search ?? '').get('emulated') === '1') info.emulated = true;
  try {
    const hv = await ua?.getHighEntropyValues?.(['architecture', 'bitness', 'platformVersion', 'fullVersionList']);
    if (hv) {
      const a = String(hv.architecture ?? '').toLowerCase();
      if (a === 'arm' || a === 'x86') {
        info.arch = a === 'arm' ? 'ARM' : 'x86';
        info.archSource = 'client hints';
      }
      if (hv.bitness) info.bitness = String(hv.bitness);
      if (hv.platformVersion) info.platformVersion = String(hv.platformVersion);
      if (Array.isArray(hv.fullVersionList)) info.browser = browserName(ua, hv.fullVersionList as { brand: string; version: string }[]);
    }
  } catch {
    // Client hints refused: fall through to the user agent.
  }
  info.os = osFromUA(navigator.userAgent, info.platform, info.platformVersion);
  if (info.arch === 'unknown') {
    const guess = archFromText(`${navigator.userAgent} ${(navigator as { platform?: string }).platform ?? ''}`);
    if (guess) {
      info.arch = guess;
      info.archSource = 'user agent';
    }
  }
  return info;
}

export function archText(h: HostInfo): string {
  if (h.arch === 'unknown') return 'cannot tell (this browser exposes neither client hints nor an architecture in its user agent)';
  return `${h.arch}${h.bitness ? ` ${h.bitness}-bit` : ''}${h.archSource === 'user agent' ? ' (guessed from the user agent)' : ''}`;
}

export const EMULATED = 'emulated — correctness only';

export function hostLabel(h: HostInfo): string {
  return `${h.arch === 'unknown' ? '?' : h.arch}${h.emulated ? ` (${EMULATED})` : ''} · ${h.cores} cores · ${h.browser}`;
}
