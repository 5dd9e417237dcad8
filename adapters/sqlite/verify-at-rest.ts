// `satang verify`'s secrets-at-rest section (DESIGN.md "Secrets at rest"): reads every
// file of the data dir as bytes and reports any secret found in clear — an API key
// secret (sk_live_/sk_test_), a slip upload token (server/capability.ts: base64url of its
// JSON claims, which open with {"aud":"pg-slip-ingest", then "." and a 64-byte Ed25519
// signature), a PEM private key, a DER PKCS#8 Ed25519 private key, or a JWK with its
// private part, a signed JWT (an operator's access or step-up token), or the master key
// itself when the scan is given it (as base64, base64url, hex or its 32 raw bytes), in the
// request log an account number or a webhook URL's path a logged body kept in clear, and,
// given journal.db open, a webhook endpoint's URL path or query in clear in its table — and
// any mode looser than 0700 for a directory and 0600 for a file.
// Sealed values (adapters/sealing.ts) are random bytes in base64url and match none of
// these. A finding names the file and the kind of secret, never the secret itself.
// Kept apart from verify.ts (the journal's checks): it reads files, and of the database
// only the one table whose clear column must hold no secret.

import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { writeSideLimits } from '../../core/limits.ts';
import { accountNumberKeyInJson, urlKeyInJson } from '../../core/sensitive-keys.ts';
import { keptInClearSafely } from '../webhooks/endpoints.ts';
import { tableExists, type Db } from './schema.ts';

export interface AtRestReport {
  ok: boolean;
  files_scanned: number;
  bytes_scanned: number;
  finding_count: number;
  findings: string[];
}

const dirMode = 0o700;
const fileMode = 0o600;
/** Files are read in chunks this large, overlapping by the longest pattern, so a file of any size is scanned in bounded memory. */
const chunkBytes = 4 * 1024 * 1024;
const overlapBytes = 4096;
/** How deep the scan descends below the data dir (it holds slips/ one level down). */
const depthMax = 8;

/** What a secret in clear looks like, by kind. Latin-1 decoding keeps one character per byte. */
const patterns: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'an API key secret (sk_live_)', pattern: /sk_live_[A-Za-z0-9_-]{16,}/ },
  { kind: 'an API key secret (sk_test_)', pattern: /sk_test_[A-Za-z0-9_-]{16,}/ },
  // base64url('{"aud":"pg-slip-ingest",') then more claims, a dot and 86 characters of signature.
  { kind: 'a slip upload token', pattern: /eyJhdWQiOiJwZy1zbGlwLWluZ2VzdCIs[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{86}/ },
  { kind: 'a PEM private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )?PRIVATE KEY-----/ },
  // SEQUENCE, version 0, AlgorithmIdentifier id-Ed25519 (1.3.101.112), OCTET STRING { OCTET STRING (32) }.
  { kind: 'a PKCS#8 private key (Ed25519, DER)', pattern: /\x30\x2e\x02\x01\x00\x30\x05\x06\x03\x2b\x65\x70\x04\x22\x04\x20/ },
  { kind: 'a JWK private key', pattern: /"d"\s*:\s*"[A-Za-z0-9_-]{32,}"/ },
  // header.payload.signature, both JSON objects ("{" is "eyJ" in base64url), signed (HS256's 43 characters at least).
  { kind: 'a signed JWT (a bearer token)', pattern: /eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{43,}/ },
];

/**
 * What only the request log's files (logs.db and its WAL) must never hold: a logged body's
 * account number in clear (its redaction keeps the last four digits behind x's, whatever
 * JSON type the number came as), or a webhook URL's path (its redaction keeps "/" or
 * "/[redacted]"; a body cut there ends in "…", \xe2 in latin-1), under any key the
 * redaction masks (core/sensitive-keys.ts, the lists it reads). Elsewhere the journal keeps
 * a payee's account number for payouts, so the patterns are the request log's alone.
 */
const requestLogPatterns: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'an account number (a logged body)', pattern: new RegExp(`${accountNumberKeyInJson}[0-9][0-9 -]{5,}`, 'i') },
  { kind: "a webhook URL's path (a logged body)", pattern: new RegExp(`${urlKeyInJson}[a-z][a-z0-9+.-]*://[^/"?#\\s]*/(?![["?#\\xe2])`, 'i') },
];
const isRequestLogFile = (name: string) => name === 'logs.db' || name.startsWith('logs.db-');

/** The master key's spellings, as patterns (regex-escaped; latin-1 so the raw bytes are one character each). */
function masterKeyPatterns(key: Buffer): { kind: string; pattern: RegExp }[] {
  const escape = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&').replace(/[\x00-\x1f\x7f-\xff]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const spellings = [key.toString('base64').replace(/=+$/, ''), key.toString('base64url'), key.toString('hex'), key.toString('hex').toUpperCase(), key.toString('latin1')];
  return [{ kind: 'the master key', pattern: new RegExp(spellings.map(escape).join('|')) }];
}

/** `journal`: journal.db open (satang verify), for its webhook endpoints' clear URLs. */
export function scanDataDir(dir: string, options: { masterKey?: Buffer; journal?: Db } = {}): AtRestReport {
  const scan = new Scan(dir, options.masterKey ? [...patterns, ...masterKeyPatterns(options.masterKey)] : patterns);
  scan.directory(dir, 0);
  if (options.journal) scan.endpointUrls(join(dir, 'journal.db'), options.journal);
  return scan.report();
}

/**
 * The webhook endpoints whose URL's path or query a journal keeps in clear, by id: an older
 * build's rows (the server seals them when it opens the data dir; a backup taken before keeps them).
 */
export function endpointsInClear(db: Db): string[] {
  if (!tableExists(db, 'webhook_endpoints')) return [];
  return db.prepare<[], { id: string; url: string }>('SELECT id, url FROM webhook_endpoints ORDER BY id').all()
    .filter(({ url }) => !keptInClearSafely(url)).map(({ id }) => id);
}

class Scan {
  private readonly findings: string[] = [];
  private findingCount = 0;
  private files = 0;
  private bytes = 0;

  constructor(private readonly root: string, private readonly patterns: readonly { kind: string; pattern: RegExp }[]) {}

  report(): AtRestReport {
    return { ok: this.findingCount === 0, files_scanned: this.files, bytes_scanned: this.bytes, finding_count: this.findingCount, findings: this.findings };
  }

  directory(path: string, depth: number): void {
    this.checkMode(path, dirMode);
    if (depth > depthMax) { this.find(path, `nested deeper than ${depthMax} levels; not scanned`); return; }
    for (const name of readdirSync(path).sort()) {
      const child = join(path, name);
      const stat = lstatSync(child);
      if (stat.isDirectory()) this.directory(child, depth + 1);
      else if (stat.isFile()) this.file(child);
      else this.find(child, 'not a regular file or directory');
    }
  }

  private file(path: string): void {
    this.files++;
    this.checkMode(path, fileMode);
    const patterns = isRequestLogFile(basename(path)) ? [...this.patterns, ...requestLogPatterns] : this.patterns;
    const found = new Set<string>();
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(chunkBytes + overlapBytes);
      let carried = 0;
      for (;;) {
        const read = readSync(fd, buffer, carried, chunkBytes, null);
        if (read === 0) break;
        this.bytes += read;
        const text = buffer.toString('latin1', 0, carried + read);
        for (const { kind, pattern } of patterns) if (pattern.test(text)) found.add(kind);
        carried = Math.min(overlapBytes, carried + read);
        buffer.copy(buffer, 0, text.length - carried, text.length);
      }
    } finally {
      closeSync(fd);
    }
    for (const kind of found) this.find(path, `${kind} in clear`);
  }

  /** An endpoint's URL whose path or query the table keeps in clear (an older build's row: the server seals it when it opens the data dir). */
  endpointUrls(path: string, db: Db): void {
    for (const id of endpointsInClear(db)) this.find(path, `webhook endpoint ${id}: its URL's path or query in clear (webhook_endpoints.url)`);
  }

  private checkMode(path: string, expected: number): void {
    const mode = lstatSync(path).mode & 0o777;
    if (mode !== expected) this.find(path, `mode ${mode.toString(8)}, expected ${expected.toString(8)}`);
  }

  private find(path: string, what: string): void {
    this.findingCount++;
    const name = relative(this.root, path) || '.';
    if (this.findings.length < writeSideLimits.verifyMismatchesListedMax) this.findings.push(`${name}: ${what}`);
  }
}
