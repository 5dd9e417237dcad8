// server/start.mjs when its bundle cannot be built or written: the server still starts,
// through tsx's loader, and says why on stderr. Run on a copy of start.mjs and bundled.mjs
// beside a bundle.mjs that fails, and a main.ts that only reports how it was loaded, so
// the real start script's decision is what is tested. And the real bundle.mjs in an
// install whose node_modules/ cannot take the bundle: it writes it to the user's own cache
// (never to one anybody else may write), and the bundle runs from there.

import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A temp dir with a copy of the real start.mjs, bundled.mjs and bundling.mjs under server/, and `bundleScript` as server/bundle.mjs. */
function startBeside(bundleScript: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'satang-start-'));
  mkdirSync(join(dir, 'server'));
  for (const file of ['start.mjs', 'bundled.mjs', 'bundling.mjs']) copyFileSync(join(root, 'server', file), join(dir, 'server', file));
  writeFileSync(join(dir, 'server', 'bundle.mjs'), bundleScript);
  return dir;
}

const runStart = (dir: string) => promisify(execFile)(process.execPath, [join(dir, 'server', 'start.mjs')], { encoding: 'utf8', timeout: 60_000 });

test('a bundle that cannot be written: npm start serves through tsx instead, and says so', async () => {
  const dir = startBeside("process.stderr.write('bundle.mjs: the bundle cannot be written under the cache: EROFS\\n');\nprocess.exit(1);\n");
  try {
    // TypeScript only tsx can load (a type annotation), reporting what loaded it.
    writeFileSync(join(dir, 'server', 'main.ts'), "export async function serveUntilSignalled(): Promise<void> {\n  const how: string = 'served from main.ts';\n  process.stdout.write(how);\n}\n");
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n'); // as the repository's
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    const { stdout, stderr } = await runStart(dir);
    assert.is(stdout, 'served from main.ts');
    assert.match(stderr, /bundle\.mjs: the bundle cannot be written under the cache: EROFS/);
    assert.match(stderr, /could not be bundled; starting it through tsx instead/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bundle that can be written: npm start imports it, with no word of tsx', async () => {
  // A bundle.mjs that "builds" a plain module beside it and prints its URL, as the real one does.
  const dir = startBeside("import { writeFileSync } from 'node:fs';\nconst out = new URL('../bundle-out.mjs', import.meta.url);\nwriteFileSync(out, \"export async function serveUntilSignalled() { process.stdout.write('served from the bundle'); }\\n\");\nprocess.stdout.write(out.href);\n");
  try {
    const { stdout, stderr } = await runStart(dir);
    assert.is(stdout, 'served from the bundle');
    assert.is(stderr, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A copy of the real bundle.mjs in an install whose node_modules/ has the packages it needs
 * but a file where .cache/ would be (so nothing can be written under it, even as root), an
 * entry that imports a package, and $XDG_CACHE_HOME and $TMPDIR inside the temp dir.
 */
function readOnlyInstall(): { dir: string; env: NodeJS.ProcessEnv; bundle: () => Promise<string> } {
  // The install and the user's caches side by side, so nothing resolves from the cache by walking up into the install.
  const dir = mkdtempSync(join(tmpdir(), 'satang-bundle-'));
  const install = join(dir, 'install');
  mkdirSync(join(install, 'server'), { recursive: true });
  for (const file of ['bundle.mjs', 'bundling.mjs']) copyFileSync(join(root, 'server', file), join(install, 'server', file));
  mkdirSync(join(install, 'node_modules'));
  for (const pkg of ['esbuild', 'ulid', 'better-sqlite3']) symlinkSync(join(root, 'node_modules', pkg), join(install, 'node_modules', pkg));
  writeFileSync(join(install, 'node_modules', '.cache'), 'not a directory\n');
  writeFileSync(join(install, 'package.json'), '{ "type": "module" }\n');
  // A package import, and a package resolved at run time as adapters/worker-thread.ts does for the worker threads' bundles.
  writeFileSync(join(install, 'server', 'entry.ts'), "import { ulid } from 'ulid';\nconst id: string = ulid();\nconst resolved = import.meta.resolve('better-sqlite3').endsWith('/better-sqlite3/lib/index.js');\nprocess.stdout.write(`ran from the bundle ${id.length} ${resolved}`);\n");
  mkdirSync(join(dir, 'tmp'));
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, 'xdg'), TMPDIR: join(dir, 'tmp'), NODE_OPTIONS: '' };
  const bundle = async () => (await promisify(execFile)(process.execPath, [join(install, 'server', 'bundle.mjs'), join(install, 'server', 'entry.ts')], { encoding: 'utf8', env, timeout: 60_000 })).stdout;
  return { dir, env, bundle };
}

/** The directory the bundle's URL names, checked to be private (0700) up to the cache's own directory under `base`. */
function privateDirOf(url: string, base: string): string {
  const dir = dirname(fileURLToPath(url));
  assert.ok(dir.startsWith(join(base) + '/'), `${url} is not under ${base}`);
  for (let d = dir; d !== base; d = dirname(d)) assert.is(statSync(d).mode & 0o777, 0o700, d);
  return dir;
}

test("node_modules/ cannot take the bundle: the real bundle.mjs writes it to the user's cache, private, and it runs from there", async () => {
  const { dir, env, bundle } = readOnlyInstall();
  try {
    const url = await bundle();
    const cache = dirname(privateDirOf(url, join(dir, 'xdg'))); // the build's own directory, in the checkout's cache
    assert.is(realpathSync(join(cache, 'node_modules')), realpathSync(join(dir, 'install', 'node_modules')));
    const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(url)], { encoding: 'utf8', env, timeout: 60_000 });
    assert.is(stdout, 'ran from the bundle 26 true'); // its packages resolve through the node_modules link beside it
    assert.is(await bundle(), url); // asked again: the same build, the link kept
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a cache anybody else may write is passed over: the bundle goes to a private one under $TMPDIR', async () => {
  const { dir, env, bundle } = readOnlyInstall();
  try {
    mkdirSync(join(dir, 'xdg', 'satang'), { recursive: true });
    chmodSync(join(dir, 'xdg', 'satang'), 0o777);
    const url = await bundle();
    privateDirOf(url, join(dir, 'tmp'));
    const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(url)], { encoding: 'utf8', env, timeout: 60_000 });
    assert.is(stdout, 'ran from the bundle 26 true');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
