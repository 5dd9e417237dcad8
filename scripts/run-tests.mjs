// The test runner wrapper: runs every *.spec.ts under specs/ (one uvu process per file,
// so a crash in one suite cannot hide another), adds up uvu's per-file totals and ends
// with one line "N passed, M failed". Exits non-zero when anything failed. Files run two at
// a time (SATANG_TEST_JOBS=1: one by one), each reported as it ends.
//
// The spec files are bundled first, all in one esbuild build (a second or two) with the
// modules they share split into chunks, and each file runs as plain node on its bundle:
// booting tsx's loader and compiling the harness in every process cost about 1.6 s a file,
// some 4 minutes of the suite. A spec that reads its own location still gets its source
// file's import.meta.url (server/bundling.mjs), names are kept as tsx keeps them, and a
// failure's stack names the TypeScript lines (source maps). The bundles go to a directory
// of this run's own, removed at the end. Where they cannot be built or written, the files
// run through tsx as before, and the runner says why.
//
// Usage: npm test [-- filter]   (filter: a substring of the spec path)
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownImportMetaUrl, removeOldBuilds, writableCacheDir } from '../server/bundling.mjs';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv[2] ?? '';
const fileTimeoutMs = 5 * 60_000;
// The console's browser specs drive Chromium, the OpenID provider and the server on the same
// two cores as the file running beside them: the largest (25 journeys) took 302 s alone on a
// loaded machine. The limit stops a hang; it is not a measure of speed.
const longFileTimeoutMs = 8 * 60_000;

function findSpecs(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findSpecs(full));
    else if (name.endsWith('.spec.ts')) out.push(full);
  }
  return out;
}

/** Each spec's bundle (by its path), under `dir`; throws when they cannot be built or written. */
async function bundleSpecs(specs, dir) {
  await build({
    entryPoints: specs, outdir: dir, outbase: root, outExtension: { '.js': '.mjs' }, splitting: true, chunkNames: 'chunks/[hash]',
    bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', keepNames: true,
    sourcemap: 'linked', ...ownImportMetaUrl, logLevel: 'silent',
  });
  return new Map(specs.map((file) => [file, join(dir, relative(root, file).replace(/\.ts$/, '.mjs'))]));
}

/** The console's browser specs: minutes, where most files take seconds. */
function isLong(file) {
  return relative(root, file).startsWith('specs/console/');
}

/** The files' process groups while they run: a Ctrl-C of the runner reaches them (detached, they are not in the terminal's group). */
const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const pid of running) { try { process.kill(-pid, 'SIGTERM'); } catch { /* gone */ } }
    process.exit(130);
  });
}

function runOne(file, bundle) {
  return new Promise((resolve) => {
    const args = bundle ? ['--enable-source-maps', bundle] : ['--import', 'tsx', file];
    // Its own process group, so that a file that runs out of time is stopped with what it
    // started: SIGTERM first (Playwright closes its Chromium on it; a server the spec spawned
    // stops), SIGKILL 5 s later. A SIGKILL of the file alone left Chromium and servers
    // running, on the same two cores as every later file.
    const child = spawn(process.execPath, args, {
      cwd: root, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    });
    running.add(child.pid);
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const signalGroup = (signal) => { try { process.kill(-child.pid, signal); } catch { /* already gone */ } };
    let killer;
    const timeoutMs = isLong(file) ? longFileTimeoutMs : fileTimeoutMs;
    const timer = setTimeout(() => {
      output += `\n(timed out after ${timeoutMs} ms)\n`;
      signalGroup('SIGTERM');
      killer = setTimeout(() => signalGroup('SIGKILL'), 5_000);
    }, timeoutMs);
    child.on('close', (code) => { clearTimeout(timer); clearTimeout(killer); signalGroup('SIGKILL'); running.delete(child.pid); resolve({ code, output }); });
  });
}

const specs = findSpecs(join(root, 'specs')).filter((f) => f.includes(filter));
let passed = 0, failed = 0;
const started = Date.now();
let bundles = new Map();
let bundleDir;
try {
  const cache = fileURLToPath(writableCacheDir());
  bundleDir = join(cache, `specs-${process.pid}`);
  removeOldBuilds(cache, 'specs', bundleDir); // what an interrupted run left
  bundles = await bundleSpecs(specs, bundleDir);
  console.log(`(${specs.length} spec files bundled in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
} catch (error) {
  console.log(`(the spec files could not be bundled, so each runs through tsx: ${error.message.split('\n')[0]})`);
}
// Two files at a time (SATANG_TEST_JOBS; 1 runs them one by one), the console's browser
// specs (minutes, mostly Chromium's) first: on two cores each file takes longer, but the
// suite about 85 % of its serial time, and CI stays further from its 15 minutes.
const jobs = Math.max(1, Math.floor(Number(process.env.SATANG_TEST_JOBS)) || 2);
const queue = [...specs.filter(isLong), ...specs.filter((f) => !isLong(f))];
async function worker() {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const t0 = Date.now();
    const { code, output } = await runOne(file, bundles.get(file));
    const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? 0);
    const ok = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? 0);
    const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
    // A file that crashed before uvu printed its totals counts as one failure.
    let fileFailed = total - ok - skipped;
    if (code !== 0 && fileFailed === 0) fileFailed = 1;
    passed += ok; failed += fileFailed;
    const name = relative(root, file);
    const mark = fileFailed === 0 ? 'ok  ' : 'FAIL';
    console.log(`${mark} ${name}  (${ok} passed, ${fileFailed} failed, ${Date.now() - t0} ms)`);
    if (fileFailed > 0) console.log(output.split('\n').map((l) => '    ' + l).join('\n'));
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, specs.length) }, worker));
if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
console.log(`(${specs.length} spec files in ${Math.round((Date.now() - started) / 1000)} s)`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && specs.length > 0 ? 0 : 1);
