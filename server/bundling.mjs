// What every esbuild bundle of this repository's TypeScript shares: where a bundle may be
// written (server/bundle.mjs for `npm start`, scripts/cli/boot.mjs for the command line,
// scripts/run-tests.mjs for the specs) and each module keeping its own import.meta.url.
//
// The cache: the install's node_modules/.cache/satang/, where packages resolve as from the
// repository; where node_modules/ is read-only, this checkout's directory in a cache of the
// user's own ($XDG_CACHE_HOME/satang/<checkout>/, or ~/.cache/…, then
// $TMPDIR/satang-<uid>/<checkout>/) beside a node_modules symlink to the repository's, so
// that packages resolve the same from there (the bundle's imports, and the worker threads'
// import.meta.resolve). Such a cache is used only when it is this user's and nobody else
// may write it, since code is loaded from it.

import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * esbuild options that give each bundled file its own `import.meta.url`, `.filename` and
 * `.dirname` (that file's, not the bundle's): constants declared at its top, which define
 * points the expressions at.
 */
export const ownImportMetaUrl = {
  define: { 'import.meta.url': '__moduleUrl', 'import.meta.filename': '__moduleFile', 'import.meta.dirname': '__moduleDir' },
  plugins: [{
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.(ts|mjs|js)$/ }, (args) => ({
        loader: args.path.endsWith('.ts') ? 'ts' : 'js',
        // On the file's first line, so that source maps and stack traces keep its line numbers.
        contents: `const __moduleUrl = ${JSON.stringify(pathToFileURL(args.path).href)}, __moduleFile = ${JSON.stringify(args.path)}, __moduleDir = ${JSON.stringify(dirname(args.path))}; ${readFileSync(args.path, 'utf8')}`,
      }));
    },
  }],
};

/**
 * The first place a bundle can be written (a directory URL ending in /): the install's
 * node_modules/.cache/satang/, else this checkout's directory in a cache of the user's
 * that only this user may write, with a node_modules link to the repository's. Throws,
 * naming every place tried and why, when there is none.
 */
export function writableCacheDir() {
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
  throw new Error(`no cache can take the bundle: ${reasons.join('; ')}`);
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

/**
 * The file URL of `entry`'s bundle (code-split ES modules) under the cache, built again
 * only when a file it was built from reads differently (`currentBundle`). Builds go to a
 * directory of their own and the manifest naming the current one is replaced by a rename,
 * so a process starting beside this one never loads half a build; builds other than the
 * current one go once they are an hour old. `name` keeps entries apart in the cache.
 * Throws when the bundle cannot be built or written.
 */
export async function cachedBundle(entry, name) {
  const current = currentBundle(entry, name);
  if (current) return current;
  const cache = writableCacheDir();
  const { build } = await import('esbuild');
  const root = fileURLToPath(new URL('../', import.meta.url));
  const outdir = join(fileURLToPath(cache), `${name}-${Date.now().toString(36)}-${process.pid}`);
  mkdirSync(join(outdir, 'chunks'), { recursive: true, mode: 0o700 }); // code is loaded from here: nobody else may write it
  const built = await build({
    entryPoints: [fileURLToPath(entry)], absWorkingDir: root, outdir, entryNames: '[name]', outExtension: { '.js': '.mjs' }, splitting: true, chunkNames: 'chunks/[hash]',
    bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external',
    sourcemap: 'linked', ...ownImportMetaUrl, metafile: true, logLevel: 'silent', legalComments: 'none',
  });
  // This file too: how a bundle is built is part of what it is.
  const inputs = [...Object.keys(built.metafile.inputs).map((path) => join(root, path)), fileURLToPath(import.meta.url)].sort();
  const main = pathToFileURL(join(outdir, `${basename(fileURLToPath(entry)).replace(/\.[^.]+$/, '')}.mjs`)).href;
  replaceFile(join(fileURLToPath(cache), `${name}.json`), JSON.stringify({ entry: entry.href, main, inputs, digest: digestOf(inputs) }));
  removeOldBuilds(fileURLToPath(cache), name, outdir);
  return main;
}

/**
 * The file URL of `entry`'s last bundle when every repository file it was built from still
 * reads the same, else null. The manifest beside the builds lists those files with one
 * digest of their contents: checking it reads them (about 15 ms for the server or the
 * command line), where a build takes a few hundred. Synchronous, and loads no esbuild.
 */
export function currentBundle(entry, name) {
  let manifest;
  try {
    manifest = freshManifest(join(fileURLToPath(writableCacheDir()), `${name}.json`), entry);
  } catch {
    return null; // no cache
  }
  return manifest !== null && existsSync(new URL(manifest.main)) ? manifest.main : null;
}

/**
 * The text of `entry` bundled into one ES module, for a caller that bundles synchronously (a
 * worker thread's data: URL, adapters/worker-thread.ts): the last build's when every
 * repository file it was built from still reads the same, else what `build()` returns
 * ({ code, inputs: the absolute paths of what it bundled and of the caller that says how),
 * kept in the cache for the next process. Where no cache can be written it builds every
 * time.
 */
export function cachedCodeSync(entry, name, build) {
  let cache;
  try { cache = writableCacheDir(); } catch { return build().code; }
  const manifestFile = join(fileURLToPath(cache), `${name}.json`);
  const manifest = freshManifest(manifestFile, entry);
  if (manifest !== null) {
    try { return readFileSync(manifest.file, 'utf8'); } catch { /* removed since: built again */ }
  }
  const built = build();
  const code = built.code;
  const inputs = [...built.inputs, fileURLToPath(import.meta.url)].sort();
  const digest = digestOf(inputs);
  const file = join(fileURLToPath(cache), `${name}-${digest.slice(0, 16)}.mjs`);
  try {
    replaceFile(file, code);
    replaceFile(manifestFile, JSON.stringify({ entry: entry.href, file, inputs, digest }));
    removeOldBuilds(fileURLToPath(cache), name, file);
  } catch { /* a cache that cannot take it: built again next time */ }
  return code;
}

/** The manifest in `file` when it is `entry`'s and every file it lists still reads the same, else null. */
function freshManifest(file, entry) {
  let manifest;
  try { manifest = JSON.parse(readFileSync(file, 'utf8')); } catch { return null; } // no build yet, or one cut short
  return manifest.entry === entry.href && digestOf(manifest.inputs) === manifest.digest ? manifest : null;
}

/** Written under a temporary name and renamed: a process reading beside this one never sees half a file. */
function replaceFile(file, text) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/** Builds of `name` other than `keep` go once they are an hour old (a process that loaded one has long done so). */
export function removeOldBuilds(cache, name, keep) {
  for (const entry of readdirSync(cache)) {
    const path = join(cache, entry);
    if (!entry.startsWith(`${name}-`) || path === keep) continue;
    try { if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true }); } catch { /* gone already */ }
  }
}

/** One digest of the files' names and contents; a file gone reads as missing, so the digest changes. */
function digestOf(files) {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file).update('\0');
    try { hash.update(readFileSync(file)); } catch { hash.update('\0missing'); }
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The cache's name for an entry's builds: its file name and a digest of its path (server/main.ts and scripts/cli/main.ts are both main). */
export function bundleName(entry) {
  return `${basename(fileURLToPath(entry)).replace(/\.[^.]+$/, '')}-${createHash('sha256').update(entry.href).digest('hex').slice(0, 8)}`;
}
