// server/bundling.mjs, which the command line (scripts/cli/boot.mjs), the server's worker
// threads and the test runner run through: a cached bundle is built once and again only
// when a source it bundles changes, each bundled module keeps its own import.meta.url/filename/dirname, and the
// command line still runs (through tsx, saying why) when no bundle can be made.

import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cachedBundle, cachedCodeSync, writableCacheDir } from '../../server/bundling.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('this spec, bundled by the runner, still reads its own source file as its location', () => {
  assert.is(import.meta.url, pathToFileURL(join(root, 'specs', 'cli', 'bundling.int.spec.ts')).href);
  assert.is(import.meta.filename, join(root, 'specs', 'cli', 'bundling.int.spec.ts'));
  assert.is(import.meta.dirname, join(root, 'specs', 'cli'));
});

test('a cached bundle is reused while its sources read the same, and built again when one changes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-bundling-'));
  const name = `spec-${process.pid}`;
  const cache = fileURLToPath(writableCacheDir());
  try {
    writeFileSync(join(dir, 'entry.ts'), "import { where } from './dep.ts';\nexport const seen: string[] = where('one');\n");
    const dep = (word: string) => `export function where(w: string): string[] { return [w, '${word}', import.meta.url, import.meta.filename, import.meta.dirname]; }\n`;
    writeFileSync(join(dir, 'dep.ts'), dep('first'));
    const entry = pathToFileURL(join(dir, 'entry.ts'));

    const first: string = await cachedBundle(entry, name);
    assert.ok(fileURLToPath(first).startsWith(cache), first);
    const loaded = (await import(first)).seen;
    assert.equal(loaded, ['one', 'first', pathToFileURL(join(dir, 'dep.ts')).href, join(dir, 'dep.ts'), dir]);
    assert.is(await cachedBundle(entry, name), first, 'nothing changed: the same build');

    writeFileSync(join(dir, 'dep.ts'), dep('second'));
    const second: string = await cachedBundle(entry, name);
    assert.is.not(second, first, 'a source changed: built again');
    assert.is((await import(second)).seen[1], 'second');
    assert.ok(existsSync(fileURLToPath(first)), 'an earlier build stays for an hour, for a process that loaded it');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    for (const file of readdirSync(cache)) if (file.startsWith(name)) rmSync(join(cache, file), { recursive: true, force: true });
  }
});

test("a worker's code is built once and kept: the next process reads it while its sources read the same", () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-bundling-'));
  const name = `spec-code-${process.pid}`;
  const cache = fileURLToPath(writableCacheDir());
  try {
    const source = join(dir, 'worker.ts');
    writeFileSync(source, 'export const n = 1;\n');
    let builds = 0;
    const build = () => { builds++; return { code: `// build ${builds}: ${readFileSync(source, 'utf8')}`, inputs: [source] }; };
    const entry = pathToFileURL(source);
    assert.is(cachedCodeSync(entry, name, build), '// build 1: export const n = 1;\n');
    assert.is(cachedCodeSync(entry, name, build), '// build 1: export const n = 1;\n', 'read from the cache');
    assert.is(builds, 1);
    writeFileSync(source, 'export const n = 2;\n');
    assert.is(cachedCodeSync(entry, name, build), '// build 2: export const n = 2;\n', 'a source changed: built again');
    assert.is(builds, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    for (const file of readdirSync(cache)) if (file.startsWith(name)) rmSync(join(cache, file), { recursive: true, force: true });
  }
});

test('the command line runs through tsx, and says why, when it cannot be bundled', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-boot-'));
  try {
    mkdirSync(join(dir, 'scripts', 'cli'), { recursive: true });
    mkdirSync(join(dir, 'server'));
    mkdirSync(join(dir, 'node_modules'));
    copyFileSync(join(root, 'scripts', 'cli', 'boot.mjs'), join(dir, 'scripts', 'cli', 'boot.mjs'));
    symlinkSync(join(root, 'node_modules', 'tsx'), join(dir, 'node_modules', 'tsx'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(dir, 'server', 'bundling.mjs'), "export const bundleName = () => 'main';\nexport async function cachedBundle() { throw new Error('no cache can take the bundle: EROFS'); }\n");
    writeFileSync(join(dir, 'scripts', 'cli', 'main.ts'), "const argv: string[] = process.argv.slice(2);\nprocess.stdout.write(`ran ${argv.join(' ')} from ${import.meta.url.endsWith('/scripts/cli/main.ts')}`);\n");
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(dir, 'scripts', 'cli', 'boot.mjs'), 'scenarios', '--json'], { encoding: 'utf8', timeout: 60_000 });
    assert.is(stdout, 'ran scenarios --json from true');
    assert.match(stderr, /runs through tsx, as it could not be bundled: no cache can take the bundle: EROFS/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
