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
// the repository. Where the install's node_modules/ is read-only, it goes to a cache of the
// user's own instead ($XDG_CACHE_HOME/satang/<checkout>/, or ~/.cache/…, then
// $TMPDIR/satang-<uid>/<checkout>/), beside a node_modules symlink to the repository's, so
// that packages resolve the same from there (the bundle's imports, and the worker threads'
// import.meta.resolve); such a cache is used only when it is this user's and nobody else
// may write it, since code is loaded from it. Worker threads bundle their modules at start,
// into data: URLs (adapters/worker-thread.ts).
//
// A module that reads its own location keeps it: each bundled file's `import.meta.url` is
// that file's URL, not the bundle's (a per-file constant, through esbuild's define). Stack
// traces name the bundle's lines; the bundle keeps a `// path` comment before each module,
// and a source map lies beside it for `node --enable-source-maps`.

import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('./main.ts', import.meta.url));
const cacheDir = writableCacheDir();

/** Each bundled file's import.meta.url: a constant declared at its top, which define points the expression at. */
const ownUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => ({
      loader: 'ts',
      contents: `const __moduleUrl = ${JSON.stringify(pathToFileURL(args.path).href)};\n${readFileSync(args.path, 'utf8')}`,
    }));
  },
};

const built = await build({
  entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external',
  define: { 'import.meta.url': '__moduleUrl' }, plugins: [ownUrl], write: false, logLevel: 'silent', legalComments: 'none',
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

/**
 * The first place the bundle can be written: the install's node_modules/.cache/satang/, else
 * this checkout's directory in a cache of the user's that only this user may write, with a
 * node_modules symlink to the repository's. Exits (saying why) when there is none.
 */
function writableCacheDir() {
  const packages = fileURLToPath(new URL('../node_modules/', import.meta.url));
  const checkout = createHash('sha256').update(packages).digest('hex').slice(0, 16);
  const users = [join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'satang'), join(tmpdir(), `satang-${process.getuid?.() ?? 'user'}`)];
  const candidates = [{ dir: join(packages, '.cache', 'satang'), own: null }, ...users.map((own) => ({ dir: join(own, checkout), own }))];
  const reasons = [];
  for (const { dir, own } of candidates) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (own !== null) {
        for (const path of [own, dir]) {
          if (!isPrivate(path)) throw new Error(`${path} is not a directory of this user's that only this user may write`);
        }
        linkPackages(join(dir, 'node_modules'), packages);
      }
      const probe = join(dir, `.probe-${process.pid}`);
      writeFileSync(probe, '');
      rmSync(probe);
      return pathToFileURL(dir + '/');
    } catch (error) {
      reasons.push(`${dir}: ${error.message}`);
    }
  }
  process.stderr.write(`bundle.mjs: the bundle cannot be written under any cache: ${reasons.join('; ')}\n`);
  process.exit(1);
}

/** `link` → `packages`, made or mended; another process making the same link at once is fine. */
function linkPackages(link, packages) {
  const target = () => { try { return readlinkSync(link); } catch { return null; } };
  const found = target();
  if (found === packages) return;
  if (found !== null) rmSync(link);
  try {
    symlinkSync(packages, link);
  } catch (error) {
    if (target() !== packages) throw error; // a directory or file of that name, or another link
  }
}

function isPrivate(path) {
  const stat = lstatSync(path);
  return stat.isDirectory() && (!process.getuid || stat.uid === process.getuid()) && (stat.mode & 0o022) === 0;
}
