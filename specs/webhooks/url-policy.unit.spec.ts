// The endpoint URL guard (server-side request forgery): which addresses count as public,
// what production refuses at creation (http, credentials, private literals, names that
// resolve to private addresses), and that the delivery-time lookup refuses a
// non-public answer before any connection is made; development allows local receivers.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpPoster, type Timeouts } from '../../adapters/webhooks/http-post.ts';
import { guardedLookup, isPublicAddress, resolvesPublicOnly, urlProblem } from '../../adapters/webhooks/url-policy.ts';

type FakeLookup = Parameters<typeof guardedLookup>[0];
const fakeLookup = (addresses: string[]): FakeLookup => ((_host: string, _options: unknown, callback: (e: null, a: { address: string; family: number }[]) => void) =>
  callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })))) as unknown as FakeLookup;

test('public and non-public addresses', () => {
  for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1', '100.128.0.1']) assert.ok(isPublicAddress(a), a);
  for (const a of ['127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd00::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', 'not-an-ip']) {
    assert.not.ok(isPublicAddress(a), a);
  }
});

test('production: https only, no credentials, no private literal; development allows http://127.0.0.1', () => {
  assert.is(urlProblem('https://hooks.example.com/satang', 'production'), undefined);
  assert.match(urlProblem('http://hooks.example.com/satang', 'production')!, /https/);
  assert.match(urlProblem('https://user:pw@hooks.example.com/', 'production')!, /credentials/);
  assert.match(urlProblem('https://127.0.0.1/hook', 'production')!, /loopback/);
  assert.match(urlProblem('https://[::1]/hook', 'production')!, /loopback/);
  assert.match(urlProblem('https://169.254.169.254/latest/meta-data', 'production')!, /loopback/);
  assert.match(urlProblem('ftp://example.com/', 'development')!, /http or https/);
  assert.match(urlProblem('not a url', 'development')!, /absolute URL/);
  assert.is(urlProblem('http://127.0.0.1:4000/hook', 'development'), undefined);
});

test('creation-time resolution refuses a name with any non-public address', async () => {
  assert.equal(await resolvesPublicOnly('hooks.example.com', fakeLookup(['93.184.216.34']) as never), { ok: true, addresses: ['93.184.216.34'] });
  assert.is((await resolvesPublicOnly('rebind.example.com', fakeLookup(['93.184.216.34', '10.0.0.5']) as never)).ok, false);
  assert.is((await resolvesPublicOnly('localhost')).ok, false);
});

test('the delivery-time lookup refuses a private answer, so nothing connects', async () => {
  const lookup = guardedLookup(fakeLookup(['192.168.0.10']) as never);
  const error = await new Promise<Error | null>((resolve) => lookup('internal.example.com', {}, (e) => resolve(e)));
  assert.match(String(error), /non-public/);
  const allowed = guardedLookup(fakeLookup(['93.184.216.34']) as never);
  const address = await new Promise<unknown>((resolve) => allowed('hooks.example.com', {}, (_e, a) => resolve(a)));
  assert.is(address, '93.184.216.34');
  const all = await new Promise<unknown>((resolve) => allowed('hooks.example.com', { all: true }, (_e, a) => resolve(a)));
  assert.equal(all, [{ address: '93.184.216.34', family: 4 }]);
});

test('a production poster never reaches a local receiver (literal or resolved name)', async () => {
  const timeouts: Timeouts = { connectMs: 1000, firstByteMs: 1000, totalMs: 2000 };
  const poster = new HttpPoster(timeouts, 'production');
  const literal = await poster.post('https://127.0.0.1:9/hook', {}, Buffer.from('{}'));
  assert.is(literal.outcome, 'retry');
  assert.match(literal.error!, /^destination_not_allowed/);
  const named = await poster.post('https://localhost:9/hook', {}, Buffer.from('{}'));
  assert.match(named.error!, /^destination_not_allowed/);
  const plain = await poster.post('http://hooks.example.com/hook', {}, Buffer.from('{}'));
  assert.match(plain.error!, /https/);
  poster.close();
});

test.run();
