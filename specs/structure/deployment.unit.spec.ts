// The deployment files (deploy/, .env.example): the systemd units parse (`systemd-analyze
// verify`, where systemd is installed) and are hardened — a dedicated user, no new
// privileges, a read-only system, the data dir 0700 under a 0077 umask; the nats-server
// config has JetStream with sync_interval always and a three-node cluster, and parses
// (`nats-server -t`, where installed); .env.example names every SATANG_ variable the code
// reads.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../../', import.meta.url).pathname;
const unitsDir = join(root, 'deploy/systemd');
const units = readdirSync(unitsDir).filter((f) => f.endsWith('.service')).sort();
const timers = readdirSync(unitsDir).filter((f) => f.endsWith('.timer')).sort();
const natsConf = join(root, 'deploy/nats/nats-server.conf');
const systemdAnalyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find(existsSync);
const natsServer = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find(existsSync);

test('the units exist: API, NATS, projector, and the daily backup with its timer', () => {
  assert.equal(units, ['satang-api.service', 'satang-backup.service', 'satang-nats.service', 'satang-projector.service']);
  assert.equal(timers, ['satang-backup.timer']);
  const backup = readFileSync(join(unitsDir, 'satang-backup.service'), 'utf8');
  assert.match(backup, /backup --to "\/var\/backups\/satang\//, 'backs up into a new directory');
  assert.not.match(backup, /LoadCredential|master-key/, 'a backup never needs the master key');
});

test('systemd-analyze verify accepts every unit', () => {
  if (!systemdAnalyze) {
    console.log('systemd-analyze is not installed here: only the hardening checks ran');
    return;
  }
  const result = spawnSync(systemdAnalyze, ['verify', ...[...units, ...timers].map((u) => join(unitsDir, u))], { encoding: 'utf8' });
  assert.is(result.status, 0, `${result.stdout}${result.stderr}`);
  assert.is(result.stderr.trim(), '', `warnings: ${result.stderr}`);
});

test('every unit is hardened: its own user, no new privileges, read-only system, private data dir', () => {
  for (const unit of units) {
    const text = readFileSync(join(unitsDir, unit), 'utf8');
    const has = (line: RegExp, why: string) => assert.match(text, line, `${unit}: ${why}`);
    has(/^User=satang(-nats)?$/m, 'a dedicated user');
    has(/^NoNewPrivileges=yes$/m, 'NoNewPrivileges');
    has(/^ProtectSystem=strict$/m, 'ProtectSystem=strict');
    has(/^ProtectHome=yes$/m, 'ProtectHome');
    has(/^PrivateTmp=yes$/m, 'PrivateTmp');
    has(/^StateDirectoryMode=0700$/m, 'the data dir 0700');
    has(/^UMask=0077$/m, 'files private by default');
    has(/^CapabilityBoundingSet=$/m, 'no capabilities');
    has(unit === 'satang-backup.service' ? /^ReadWritePaths=\/var\/lib\/satang \/var\/backups\/satang$/m : /^ReadWritePaths=\/var\/lib\/satang(-nats)?$/m, 'writes only to its data dir (and the backups)');
    assert.not.match(text, /^User=root$/m, `${unit}: not root`);
  }
  const api = readFileSync(join(unitsDir, 'satang-api.service'), 'utf8');
  assert.match(api, /^LoadCredential=master-key:/m, 'the master key as a credential, not in the environment file');
});

test('nats-server: JetStream with sync_interval always in a three-node cluster, and the journal stream on 3 replicas', () => {
  const conf = readFileSync(natsConf, 'utf8');
  assert.match(conf, /^\s*sync_interval:\s*always$/m);
  assert.is((conf.match(/nats-route:\/\//g) ?? []).length, 3, 'three routes');
  assert.match(readFileSync(join(root, '.env.example'), 'utf8'), /^SATANG_NATS_REPLICAS=3$/m);
  // The journal (account numbers, names) is read only by clients that sign in, and crosses hosts only over TLS checked both ways.
  assert.match(conf, /^include "nats-auth\.conf"$/m, 'clients sign in (users kept apart, hashed; read beside the config)');
  assert.not.match(conf, /^\s*no_auth_user/m, 'no one signs in without a password');
  assert.match(conf, /cluster \{[^]*tls \{[^]*verify: true/, 'routes over mutual TLS');
  for (const unit of ['satang-api.service', 'satang-projector.service']) {
    assert.match(readFileSync(join(unitsDir, unit), 'utf8'), /^LoadCredential=nats-password:/m, `${unit}: NATS's password as a credential`);
  }
  assert.match(readFileSync(join(root, '.env.example'), 'utf8'), /^SATANG_NATS_USER=satang$/m);
  if (!natsServer) return;
  // `sync_interval` came with nats-server 2.10; an older one here parses the rest.
  const version = /v(\d+)\.(\d+)/.exec(execFileSync(natsServer, ['--version'], { encoding: 'utf8' }))!;
  const knowsSyncInterval = Number(version[1]) > 2 || (Number(version[1]) === 2 && Number(version[2]) >= 10);
  const dir = mkdtempSync(join(tmpdir(), 'satang-nats-conf-'));
  try {
    const file = join(dir, 'nats-server.conf');
    // The files it names, made here: the users (a hash is what production keeps; the parse takes either), a CA and a node certificate.
    writeFileSync(join(dir, 'nats-auth.conf'), 'authorization { users: [ { user: satang, password: "$2a$11$PWIFAL8RsWyGI3jVZtO9Nu8.6jOxzxfZo7c/W0eLk017hjgUKWrhy" } ] }\n');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=satang-nats-ca', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.crt')], { stdio: 'ignore' });
    execFileSync('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=nats-1.satang.internal', '-keyout', join(dir, 'node.key'), '-out', join(dir, 'node.csr')], { stdio: 'ignore' });
    execFileSync('openssl', ['x509', '-req', '-in', join(dir, 'node.csr'), '-CA', join(dir, 'ca.crt'), '-CAkey', join(dir, 'ca.key'), '-CAcreateserial', '-days', '1', '-out', join(dir, 'node.crt')], { stdio: 'ignore' });
    const local = conf.replaceAll('/etc/satang/nats-tls/', `${dir}/`);
    writeFileSync(file, knowsSyncInterval ? local : local.replace(/^\s*sync_interval:.*$/m, ''));
    const result = spawnSync(natsServer, ['-t', '-c', file], { encoding: 'utf8', env: { ...process.env, NATS_SERVER_NAME: 'nats-1' } });
    assert.is(result.status, 0, `${result.stdout}${result.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|mjs)$/.test(e.name) ? [full] : [];
  });
}

test('.env.example lists every SATANG_ variable the code reads, and nothing else', () => {
  const read = new Set<string>();
  for (const dir of ['server', 'adapters', 'projections', 'scripts', 'core']) {
    for (const file of sourceFiles(join(root, dir))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\b(?:env|process\.env)(?:\.|\[')(SATANG_[A-Z0-9_]+)/g)) read.add(m[1]!);
    }
  }
  const listed = new Set([...readFileSync(join(root, '.env.example'), 'utf8').matchAll(/^#?(SATANG_[A-Z0-9_]+)=/gm)].map((m) => m[1]!));
  assert.equal([...read].filter((v) => !listed.has(v)).sort(), [], 'read by the code but missing from .env.example');
  assert.equal([...listed].filter((v) => !read.has(v)).sort(), [], 'in .env.example but read nowhere');
});

test('one data dir everywhere: the env file the API and projector read, the backup unit, and every --data-dir the README gives for production', () => {
  const dataDir = /^SATANG_DATA_DIR=(\S+)$/m.exec(readFileSync(join(root, '.env.example'), 'utf8'))?.[1];
  assert.ok(dataDir, '.env.example sets SATANG_DATA_DIR');
  assert.match(readFileSync(join(root, 'deploy/systemd/satang-backup.service'), 'utf8'), new RegExp(`^Environment=SATANG_DATA_DIR=${dataDir}$`, 'm'));
  const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const given = [...readme.matchAll(/(?:--data-dir|SATANG_DATA_DIR=) ?(\/var\/lib\/satang\S*?)[`'\s]/g)].map((m) => m[1]!);
  assert.ok(given.length >= 3, `the README's production commands: ${given.join(', ')}`);
  assert.equal([...new Set(given)], [dataDir]);
});

test.run();
