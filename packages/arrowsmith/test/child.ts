/** Child processes of the tests, started with a clean environment. */
import process from 'node:process';

/**
 * The parent's environment less the variables that steer Arrowsmith (`ARROWSMITH_*`), plus
 * `extra`: a suite run under `ARROWSMITH_SIMD=0` still tests what each child is asked to do.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('ARROWSMITH_')) delete env[k];
  return { ...env, ...extra };
}
