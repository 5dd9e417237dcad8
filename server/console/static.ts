// The operator console's files (issue 17), served at /console/ by the API's own process:
// index.html, the page modules and the stylesheet from the repository's console/ folder,
// and four vendor ES modules (preact, preact/hooks, htm, oauth4webapi) from a fixed table
// into node_modules. No build step: the browser loads the modules as they are, and the
// inline import map in index.html resolves their bare names to /console/vendor/….
//
// Invariants kept:
//   - every file is read once, at startup, into memory; a request never touches the disk,
//     so no request path can name a file outside the whitelist (the lookup is a Map);
//   - only .html, .js, .css, .svg files under console/ are served (resolved and checked to
//     lie inside the folder), never a dotfile; anything else is 404 in the API's error shape;
//   - every answer under /console carries the security headers: a strict CSP whose only
//     inline script is the import map, by its sha256 (computed here, at startup);
//   - the page decides nothing: /console/tables.json hands it the server's own tables
//     (the roles per route, the claim transitions, the reason codes) so it shows only the
//     buttons the server would accept, while the server still refuses anything else.

import Router from '@koa/router';
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, resolve, sep } from 'node:path';
import { claimTransitions } from '../../core/claim/decide.ts';
import { reasonTexts } from '../../core/deposit/reasons.ts';
import { adjustmentReasonDefault, adjustmentReasonDirection, adjustmentReasons } from '../../core/directory.ts';
import { reversalReasonCodes } from '../../core/deposit/state.ts';
import { consoleLimits, limits } from '../../core/limits.ts';
import { routeRoles } from '../auth/roles.ts';
import { ApiError } from '../errors.ts';

export interface ConsoleOptions {
  /** The OIDC issuer the console logs operators in with; its origin joins connect-src and form-action. */
  readonly issuer: string;
  readonly clientId: string;
  readonly audience: string;
  readonly scopes: readonly string[];
  /** The resource indicator to ask access tokens for (the development provider's /v1/bo), when the issuer wants one. */
  readonly resource?: string;
  /** What a step-up asks the issuer for: the acr (the API takes only acr "step-up") and, where the issuer wants one, a resource. */
  readonly stepUp: { readonly acrValues: string; readonly resource?: string };
  /** The console folder (default: console/ at the repository root). */
  readonly root?: string;
}

interface ServedFile {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

const repositoryRoot = new URL('../../', import.meta.url).pathname;

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};
const servedExtensions: ReadonlySet<string> = new Set(['.html', '.js', '.css', '.svg']);

/** /console/vendor/<name>.js → the package's browser ES module (no imports but the bare names the import map resolves). */
const vendorModules: Readonly<Record<string, string>> = {
  'preact.js': 'node_modules/preact/dist/preact.mjs',
  'preact-hooks.js': 'node_modules/preact/hooks/dist/hooks.mjs',
  'htm.js': 'node_modules/htm/dist/htm.module.js',
  'oauth4webapi.js': 'node_modules/oauth4webapi/build/index.js',
};

function served(body: Buffer, type: string): ServedFile {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Every servable file under `root`, keyed by its path relative to it ('pages/queue.js'). */
function readConsoleFiles(root: string): Map<string, ServedFile> {
  const files = new Map<string, ServedFile>();
  const walk = (dir: string, depth: number): void => {
    if (depth > consoleLimits.folderDepthMax) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = resolve(dir, entry.name);
      if (!full.startsWith(root + sep)) continue; // a symlink or odd name leading out is never served
      if (entry.isDirectory()) walk(full, depth + 1);
      else if (entry.isFile() && servedExtensions.has(extname(entry.name))) {
        if (files.size >= consoleLimits.filesMax) throw new Error(`console: more than ${consoleLimits.filesMax} files under ${root}`);
        files.set(relative(root, full).split(sep).join('/'), served(readFileSync(full), contentTypes[extname(entry.name)]!));
      }
    }
  };
  walk(root, 0);
  return files;
}

/** The inline import map's sha256 for the CSP; index.html must have exactly one inline script, the import map. */
export function importMapHash(html: string): string {
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].filter((m) => !/\bsrc\s*=/i.test(m[1]!));
  if (scripts.length !== 1 || !/type\s*=\s*"?importmap"?/i.test(scripts[0]![1]!)) {
    throw new Error('console/index.html must hold exactly one inline script: <script type="importmap">');
  }
  return `sha256-${createHash('sha256').update(scripts[0]![2]!, 'utf8').digest('base64')}`;
}

export function contentSecurityPolicy(importMap: string, issuerOrigin: string): string {
  const extra = issuerOrigin === '' ? '' : ` ${issuerOrigin}`;
  return [
    "default-src 'self'", `script-src 'self' '${importMap}'`, "style-src 'self'", "img-src 'self' blob: data:",
    `connect-src 'self'${extra}`, "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", `form-action 'self'${extra}`,
  ].join('; ');
}

/** What the page needs of the server's tables, so it copies none of them. */
function consoleTables(): Record<string, unknown> {
  return {
    route_roles: routeRoles,
    claim_transitions: claimTransitions,
    reversal_reason_codes: reversalReasonCodes,
    review_reasons: Object.entries(reasonTexts).filter(([code]) => code !== 'SLIP_UNREADABLE').map(([code, text]) => ({ code, th: text.th, en: text.en })),
    note_length_min: limits.reviewNoteLengthMin,
    // Each adjustment reason, with the one direction it is for when it says which way money went (null: either).
    adjustment_reasons: Object.keys(adjustmentReasons).map((code) => ({ code, direction: adjustmentReasonDirection[code] ?? null })),
    adjustment_reason_default: adjustmentReasonDefault,
  };
}

function answer(ctx: Context, file: ServedFile, cacheControl = 'no-cache'): void {
  ctx.set('ETag', file.etag);
  ctx.set('Cache-Control', cacheControl);
  if (ctx.get('If-None-Match') === file.etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = file.type;
  ctx.body = file.body;
}

/** The console's router, for createApp's extraRouters. Throws at startup when a file it needs is missing. */
export function consoleRoutes(options: ConsoleOptions): Router {
  const root = resolve(options.root ?? join(repositoryRoot, 'console'));
  const files = readConsoleFiles(root);
  const template = files.get('index.html');
  if (!template) throw new Error(`console: no index.html in ${root}`);
  const vendor = new Map(Object.entries(vendorModules).map(([name, path]) => [name, served(readFileSync(join(repositoryRoot, path)), contentTypes['.js']!)]));
  const json = (value: unknown) => served(Buffer.from(JSON.stringify(value)), contentTypes['.json']!);
  const configValue = {
    issuer: options.issuer, client_id: options.clientId, audience: options.audience, scopes: [...options.scopes],
    ...(options.resource ? { resource: options.resource } : {}),
    step_up: { acr_values: options.stepUp.acrValues, ...(options.stepUp.resource ? { resource: options.stepUp.resource } : {}) },
  };
  const config = json(configValue);
  const tables = json(consoleTables());
  // This build's files under /console/v/<version>/ are immutable (cached for a year, never
  // revalidated), so a page load after the sign-in redirect fetches nothing twice; index.html
  // names them there, and carries the sign-in configuration, so no request waits for either.
  const version = createHash('sha256').update([...files.values(), ...vendor.values()].map((f) => f.etag).join()).digest('base64url').slice(0, 12);
  const assets = `/console/v/${version}`;
  const index = served(Buffer.from(template.body.toString('utf8')
    .replaceAll('{{assets}}', assets)
    .replace('{{config}}', escapeAttribute(JSON.stringify(configValue)))), contentTypes['.html']!);
  const csp = contentSecurityPolicy(importMapHash(index.body.toString('utf8')), new URL(options.issuer).origin);
  const fileAt = (path: string | undefined): ServedFile | undefined => {
    // The router has decoded the path; a name that resolves outside the folder is simply not found.
    const full = resolve(root, path ?? '');
    return full.startsWith(root + sep) ? files.get(relative(root, full).split(sep).join('/')) : undefined;
  };

  const router = new Router({ strict: true, sensitive: true }); // '/console' (a redirect) and '/console/' (the page) are two routes
  router.use('/console', async (ctx, next) => {
    ctx.set({
      'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY',
    });
    await next();
  });
  router.get('/console', (ctx) => {
    ctx.status = 301;
    ctx.redirect('/console/');
  });
  router.get('/console/', (ctx) => answer(ctx, index));
  router.get('/console/config.json', (ctx) => answer(ctx, config));
  router.get('/console/tables.json', (ctx) => answer(ctx, tables));
  router.get('/console/vendor/:name', (ctx) => answer(ctx, vendor.get(ctx.params.name!) ?? missing()));
  router.get('/console/v/:version/:path(.*)', (ctx) => {
    if (ctx.params.version !== version) missing(); // another build's: its page reloads into this one
    const path = ctx.params.path ?? '';
    const file = path.startsWith('vendor/') ? vendor.get(path.slice('vendor/'.length)) : path === 'index.html' ? undefined : fileAt(path);
    answer(ctx, file ?? missing(), 'public, max-age=31536000, immutable');
  });
  router.get('/console/:path(.*)', (ctx) => answer(ctx, (ctx.params.path === 'index.html' ? index : fileAt(ctx.params.path)) ?? missing()));
  return router;
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function missing(): never {
  throw new ApiError('resource_not_found', 'No such console file.');
}
