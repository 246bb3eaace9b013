// MessagePack payloads as real encoders write them (bench/payloads/: Java msgpack-core and
// Jackson, Go vmihailenco/msgpack, Rust rmp-serde, Python msgspec, fluent-logger), written to
// target/bench-data on first use, and how each reader decodes them: our options, and which
// of the peers' verbs reads the shape (one value, or a stream of concatenated values).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './cases.mjs';
import { root } from './coldwarm.mjs';

const here = join(root, 'bench/payloads');
const py = join(root, '.venv/bin/python');

/** id → [what it is, rows, our decode options, whether the bytes are concatenated values]. */
export const PAYLOADS = {
  'java-logs': ['Java msgpack-core: log events, one map each, concatenated (keys vary by event)', 20_000, {}, true],
  'java-wide': ['Java Jackson (jackson-dataformat-msgpack): 2k records × 250 keys', 2_000, {}, false],
  'go-structs': ['Go vmihailenco/msgpack: 50k telemetry structs as maps (nested struct, tags list, time.Time)', 50_000, {}, false],
  'go-arrays': ['Go vmihailenco/msgpack: 50k telemetry structs as arrays (`as_array`, time.Time)', 50_000, {}, false],
  'rust-named': ['Rust rmp-serde `to_vec_named`: 30k orders as maps (nested struct, list of structs, Option)', 30_000, {}, false],
  'rust-arrays': ['Rust rmp-serde `to_vec` (structs as arrays): the same 30k orders', 30_000, {}, false],
  'msgspec-structs': ['Python msgspec: 40k Structs as maps (nested Structs in a list, optional field)', 40_000, {}, false],
  'fluent-message-mode': ['Fluentd message mode (fluent-logger, EventTime): 30k [tag, time, record], concatenated', 30_000, { extensions: { 0: 'eventtime' } }, true],
};

const GENERATORS = [
  ['java', ['java-logs', 'java-wide'], () => {
    const src = join(here, 'java');
    const build = join(root, 'target/bench-payloads-java');
    mkdirSync(build, { recursive: true });
    const cp = join(build, 'classpath.txt');
    execFileSync('mvn', ['-q', '-B', '-f', join(src, 'pom.xml'), 'dependency:build-classpath', `-Dmdep.outputFile=${cp}`], { stdio: 'inherit' });
    const classpath = readFileSync(cp, 'utf8').trim();
    execFileSync('javac', ['-d', build, '-cp', classpath, join(src, 'GenPayloads.java')], { stdio: 'inherit' });
    execFileSync('java', ['-cp', `${build}:${classpath}`, 'GenPayloads', dataDir], { stdio: 'inherit' });
  }],
  ['go', ['go-structs', 'go-arrays'], () => execFileSync('go', ['run', '.', dataDir], { cwd: join(here, 'go'), stdio: 'inherit' })],
  ['rust', ['rust-named', 'rust-arrays'], () => execFileSync('cargo', ['run', '-q', '--release', '--manifest-path', join(here, 'rmp/Cargo.toml'), '--target-dir', join(root, 'target/bench-payloads-rmp'), '--', dataDir], { stdio: 'inherit' })],
  ['python', ['msgspec-structs', 'fluent-message-mode'], () => {
    execFileSync('bash', [join(root, 'scripts/setup-python.sh')], { stdio: 'inherit' });
    execFileSync(py, [join(here, 'gen_python.py'), dataDir], { stdio: 'inherit' });
  }],
];

const fileOf = (id) => join(dataDir, `payload_${id}.msgpack`);

/** The payloads (generated when missing), each { id, name, rows, options, stream, bytes, data }. */
export function payloads(only) {
  mkdirSync(dataDir, { recursive: true });
  for (const [, ids, gen] of GENERATORS) if (ids.some((id) => (!only || id.includes(only)) && !existsSync(fileOf(id)))) gen();
  return Object.entries(PAYLOADS)
    .filter(([id]) => !only || id.includes(only))
    .map(([id, [name, rows, options, stream]]) => ({ id, name, rows, options, stream, data: `payload_${id}.msgpack`, bytes: new Uint8Array(readFileSync(fileOf(id))) }));
}

// `node bench/payloads.mjs`: write the missing payloads and list them.
if (process.argv[1] === new URL(import.meta.url).pathname) for (const p of payloads()) console.log(`${p.data}: ${p.bytes.length} bytes`);
