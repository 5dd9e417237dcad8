// server/start.mjs when its bundle cannot be built or written (an install whose
// node_modules/ is read-only): the server still starts, through tsx's loader, and says
// why on stderr. Run on a copy of start.mjs and bundled.mjs beside a bundle.mjs that
// fails as a read-only cache makes it fail, and a main.ts that only reports how it was
// loaded, so the real start script's decision is what is tested.

import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A temp dir with a copy of the real start.mjs and bundled.mjs under server/, and `bundleScript` as server/bundle.mjs. */
function startBeside(bundleScript: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'satang-start-'));
  mkdirSync(join(dir, 'server'));
  for (const file of ['start.mjs', 'bundled.mjs']) copyFileSync(join(root, 'server', file), join(dir, 'server', file));
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

test.run();
