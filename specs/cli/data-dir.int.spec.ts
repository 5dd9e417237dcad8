// The commands that read a server's data dir, run as an operator runs them (child processes)
// against a dir no server has started on: a missing one, an empty one, one with a journal
// but no development issuer. Each must refuse with exit 1 and a message naming the dir, and
// create nothing — neither the dir, nor a master key beside it, nor an issuer key (the token
// command used to make all three and mint a token the server refused with a bare 401).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
let root: string;

function satang(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    // No SATANG_DATA_DIR, master key or token from the environment of whoever runs the specs.
    const env: NodeJS.ProcessEnv = { ...process.env, SATANG_LOG_LEVEL: 'silent', SATANG_NATS_URL: '' };
    for (const name of ['SATANG_DATA_DIR', 'SATANG_MASTER_KEY', 'SATANG_MASTER_KEY_FILE', 'SATANG_OPERATOR_TOKEN', 'SATANG_STEP_UP_TOKEN', 'SATANG_OIDC_ISSUER']) delete env[name];
    // A port nothing listens on: a command that got past the check would fail differently.
    env.SATANG_BASE_URL = 'http://127.0.0.1:9';
    const child = spawn(satangPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Everything under the temp root, so that "created nothing" is one comparison. */
const tree = (): string[] => readdirSync(root, { recursive: true }).map(String).sort();

test.before(() => {
  root = mkdtempSync(join(tmpdir(), 'satang-datadir-'));
  writeFileSync(join(root, 'next.key'), `${randomBytes(32).toString('base64')}\n`);
});
test.after(() => rmSync(root, { recursive: true, force: true }));

const missing = () => join(root, 'typo', 'data');

const commands: readonly (readonly string[])[] = [
  ['token', '--sub', 'emp_alice'],
  ['bo', 'queue'],
  ['report', 'trial-balance'],
  ['admin', 'clock', 'show'],
];

test('a missing data dir: token, bo, report and admin refuse with exit 1 naming it, and create nothing', async () => {
  const before = tree();
  for (const args of commands) {
    const r = await satang([...args, '--data-dir', missing()]);
    assert.is(r.code, 1, `${args.join(' ')}: ${r.out}`);
    assert.match(r.out, `no satang data dir at ${missing()}: start the server once (npm start) or pass --data-dir`, args.join(' '));
    assert.not.match(r.out, /eyJ[\w-]+\./, `${args.join(' ')} printed a token`);
    assert.equal(tree(), before, `${args.join(' ')} created files`);
    assert.not.ok(existsSync(`${missing()}.master-key`));
  }
});

test('a missing data dir: rekey refuses with exit 1 naming it (no raw ENOENT), and creates nothing', async () => {
  const before = tree();
  const r = await satang(['rekey', '--new-key-file', join(root, 'next.key'), '--data-dir', missing()]);
  assert.is(r.code, 1, r.out);
  assert.match(r.out, `no satang data dir at ${missing()}`);
  assert.not.match(r.out, /ENOENT/);
  assert.equal(tree(), before);
});

test('an empty dir (no journal) is refused the same way, and stays empty with no master key beside it', async () => {
  const empty = join(root, 'empty');
  mkdirSync(empty);
  const r = await satang(['token', '--data-dir', empty]);
  assert.is(r.code, 1, r.out);
  assert.match(r.out, `no satang data dir at ${empty}`);
  assert.equal(readdirSync(empty), []);
  assert.not.ok(existsSync(`${empty}.master-key`));
});

test('a journal but no development issuer (a server with an OpenID provider): token says so and makes no issuer', async () => {
  const oidc = join(root, 'oidc');
  mkdirSync(oidc);
  writeFileSync(join(oidc, 'journal.db'), ''); // only its presence is read
  const r = await satang(['token', '--data-dir', oidc]);
  assert.is(r.code, 1, r.out);
  assert.match(r.out, `${oidc} holds no development issuer key`);
  assert.match(r.out, /SATANG_OPERATOR_TOKEN and, for an action that needs a step-up, SATANG_STEP_UP_TOKEN/);
  assert.equal(readdirSync(oidc), ['journal.db']);
  assert.not.ok(existsSync(`${oidc}.master-key`));
});

test.run();
