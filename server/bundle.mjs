// Bundles server/main.ts for `npm start` (or the TypeScript entry named as the argument:
// `scripts/bundled.mjs` runs a benchmark so, as the server runs) and prints the bundle's
// file URL. server/bundled.mjs runs this in a short-lived process of its own, so the build's
// memory (esbuild's output, its service) never stays in the server.
//
// Why a bundle: run through tsx, the server keeps tsx's loader thread, its compiled sources
// and their source maps for the life of the process, about 80 MB resident on an idle
// server (235 MB against 153 MB, measured). So main.ts and what it imports from this
// repository are bundled by esbuild (which tsx itself runs on) into one ES module, written
// once per distinct build under node_modules/.cache/satang/, where packages resolve as from
// the repository, or where node_modules/ is read-only in a cache of the user's own
// (server/bundling.mjs). Worker threads bundle their modules at start, into data: URLs
// (adapters/worker-thread.ts).
//
// A module that reads its own location keeps it: each bundled file's `import.meta.url` is
// that file's URL, not the bundle's (server/bundling.mjs). Stack
// traces name the bundle's lines; the bundle keeps a `// path` comment before each module,
// and a source map lies beside it for `node --enable-source-maps`.

import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownImportMetaUrl, writableCacheDir } from './bundling.mjs';

const entry = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('./main.ts', import.meta.url));
let cacheDir;
try {
  cacheDir = writableCacheDir();
} catch (error) {
  process.stderr.write(`bundle.mjs: ${error.message}\n`);
  process.exit(1);
}

const built = await build({
  entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external',
  ...ownImportMetaUrl, write: false, logLevel: 'silent', legalComments: 'none',
  // The map's sources are relative to where the bundle lies.
  sourcemap: 'external', outfile: fileURLToPath(new URL('server.mjs', cacheDir)),
});
const mapFile = built.outputFiles.find((f) => f.path.endsWith('.map'));
const codeFile = built.outputFiles.find((f) => !f.path.endsWith('.map'));
const name = `${basename(entry, '.ts')}-${createHash('sha256').update(codeFile.contents).digest('hex').slice(0, 16)}`;
// Written under a temporary name and renamed: a process starting beside this one never imports half a file.
const put = (url, text) => {
  const temporary = `${fileURLToPath(url)}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, url);
};
const bundle = new URL(`${name}.mjs`, cacheDir);
try {
  put(new URL(`${name}.mjs.map`, cacheDir), mapFile.text);
  put(bundle, `${codeFile.text}//# sourceMappingURL=${name}.mjs.map\n`);
} catch (error) {
  process.stderr.write(`bundle.mjs: the bundle cannot be written under ${fileURLToPath(cacheDir)}: ${error.message}\n`);
  process.exit(1);
}
// Earlier builds of this entry go once they are an hour old (a process starting beside
// this one on other code has long imported its own by then).
const prefix = `${basename(entry, '.ts')}-`;
for (const file of readdirSync(cacheDir)) {
  if (!file.startsWith(prefix) || file.startsWith(name)) continue;
  const path = fileURLToPath(new URL(file, cacheDir));
  try { if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path); } catch { /* gone already */ }
}
process.stdout.write(bundle.href);
