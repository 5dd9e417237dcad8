// The test runner wrapper: runs every *.spec.ts under specs/ (one uvu process per file,
// so a crash in one suite cannot hide another), adds up uvu's per-file totals and ends
// with one line "N passed, M failed". Exits non-zero when anything failed.
//
// Usage: npm test [-- filter]   (filter: a substring of the spec path)
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv[2] ?? '';
const fileTimeoutMs = 5 * 60_000;

function findSpecs(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findSpecs(full));
    else if (name.endsWith('.spec.ts')) out.push(full);
  }
  return out;
}

function runOne(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: root, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const timer = setTimeout(() => { output += `\n(timed out after ${fileTimeoutMs} ms)\n`; child.kill('SIGKILL'); }, fileTimeoutMs);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, output }); });
  });
}

const specs = findSpecs(join(root, 'specs')).filter((f) => f.includes(filter));
let passed = 0, failed = 0;
const started = Date.now();
for (const file of specs) {
  const t0 = Date.now();
  const { code, output } = await runOne(file);
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
console.log(`(${specs.length} spec files in ${Math.round((Date.now() - started) / 1000)} s)`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && specs.length > 0 ? 0 : 1);
