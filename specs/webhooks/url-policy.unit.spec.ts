// The endpoint URL guard (server-side request forgery): which addresses count as public,
// what production refuses at creation (http, credentials, private literals, names that
// resolve to private addresses), and that the delivery-time lookup refuses a
// non-public answer before any connection is made; development allows local receivers.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpPoster } from '../../adapters/webhooks/http-post.ts';
import type { Timeouts } from '../../adapters/webhooks/settings.ts';
import { classifyAddress, guardedLookup, isPublicAddress, resolvesPublicOnly, urlProblem } from '../../adapters/webhooks/url-policy.ts';

type FakeLookup = Parameters<typeof guardedLookup>[0];
const fakeLookup = (addresses: string[]): FakeLookup => ((_host: string, _options: unknown, callback: (e: null, a: { address: string; family: number }[]) => void) =>
  callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })))) as unknown as FakeLookup;

/**
 * Address → the range that refuses it (null = a public unicast address, allowed). Range
 * names are ipaddr.js's; an IPv4 address embedded in an IPv6 form is named as
 * "<IPv6 form> <IPv4 range>".
 */
const addressTable: readonly [string, string | null][] = [
  ['93.184.216.34', null], ['8.8.8.8', null], ['172.32.0.1', null], ['100.128.0.1', null], ['2606:4700:4700::1111', null], ['2001:4860:4860::8888', null],
  ['::ffff:8.8.8.8', null], ['2002:808:808::1', null],
  ['127.0.0.1', 'loopback'], ['127.255.255.254', 'loopback'], ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'], ['169.254.169.254', 'linkLocal'], ['100.64.0.1', 'carrierGradeNat'], ['0.0.0.0', 'unspecified'], ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'broadcast'], ['240.0.0.1', 'reserved'], ['192.0.0.1', 'reserved'], ['198.18.0.1', 'reserved'],
  // The documentation nets (RFC 5737): never a real receiver.
  ['192.0.2.1', 'reserved'], ['198.51.100.7', 'reserved'], ['203.0.113.9', 'reserved'],
  ['::1', 'loopback'], ['::', 'unspecified'], ['fe80::1', 'linkLocal'], ['fd00::1', 'uniqueLocal'], ['fc00::1', 'uniqueLocal'], ['ff02::1', 'multicast'],
  ['100::1', 'discard'], ['2001:db8::1', 'reserved'],
  // IPv4-mapped (::ffff:0:0/96), in either notation: the embedded IPv4 address decides.
  ['::ffff:127.0.0.1', 'ipv4Mapped loopback'], ['::ffff:7f00:1', 'ipv4Mapped loopback'], ['::ffff:10.0.0.1', 'ipv4Mapped private'], ['::ffff:192.0.2.1', 'ipv4Mapped reserved'],
  // IPv4-compatible (::/96, deprecated): ipaddr.js calls these unicast, the embedded IPv4 address decides.
  ['::7f00:1', 'ipv4Compatible loopback'], ['::127.0.0.1', 'ipv4Compatible loopback'], ['::a9fe:a9fe', 'ipv4Compatible linkLocal'], ['::c000:201', 'ipv4Compatible reserved'],
  // 6to4 (2002::/16): the IPv4 address in bits 16–48 decides.
  ['2002:7f00:1::1', '6to4 loopback'], ['2002:a00:1::1', '6to4 private'], ['2002:c000:201::', '6to4 reserved'],
  // NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and Teredo (2001::/32): refused whatever they carry.
  ['64:ff9b::a9fe:a9fe', 'rfc6052'], ['64:ff9b::808:808', 'rfc6052'], ['64:ff9b:1::a00:1', 'rfc6052'], ['::ffff:0:7f00:1', 'rfc6145'], ['2001::1', 'teredo'], ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['not-an-ip', 'not an IP address'], ['127.1', 'not an IP address'],
];

test('address table: public unicast allowed; every other range refused, with the range named', () => {
  for (const [address, range] of addressTable) {
    const verdict = classifyAddress(address);
    if (range === null) {
      assert.ok(verdict.ok, `${address} is allowed`);
      assert.ok(isPublicAddress(address), address);
    } else {
      assert.not.ok(verdict.ok, `${address} is refused`);
      assert.is(verdict.ok ? '' : verdict.range, range, `${address}: range named`);
      assert.not.ok(isPublicAddress(address), address);
    }
  }
});

test('production refuses literal hosts in the ranges that used to slip through, naming the range', () => {
  for (const [host, range] of [['[::7f00:1]', 'ipv4Compatible loopback'], ['[2002:7f00:1::1]', '6to4 loopback'], ['[64:ff9b:1::a00:1]', 'rfc6052'],
    ['[64:ff9b::a00:1]', 'rfc6052'], ['192.0.2.1', 'reserved'], ['198.51.100.1', 'reserved'], ['203.0.113.1', 'reserved'], ['[2001::1]', 'teredo']] as const) {
    const problem = urlProblem(`https://${host}/hook`, 'production');
    assert.ok(problem, host);
    assert.ok(problem!.includes(range), `${host}: ${problem}`);
  }
});

test('production: https only, no credentials, no private literal; development allows http://127.0.0.1', () => {
  assert.is(urlProblem('https://hooks.example.com/satang', 'production'), undefined);
  assert.match(urlProblem('http://hooks.example.com/satang', 'production')!, /https/);
  assert.match(urlProblem('https://user:pw@hooks.example.com/', 'production')!, /credentials/);
  // The parser drops spaces around a URL; the endpoint would be stored with them: refused, in either mode.
  for (const mode of ['production', 'development'] as const) assert.match(urlProblem(' https://hooks.example.com/satang', mode)!, /spaces around it/);
  assert.match(urlProblem('http://127.0.0.1:9/hook\t', 'development')!, /spaces around it/);
  assert.match(urlProblem('https://127.0.0.1/hook', 'production')!, /loopback/);
  assert.match(urlProblem('https://[::1]/hook', 'production')!, /loopback/);
  assert.match(urlProblem('https://169.254.169.254/latest/meta-data', 'production')!, /linkLocal/);
  assert.match(urlProblem('ftp://example.com/', 'development')!, /http or https/);
  assert.match(urlProblem('not a url', 'development')!, /absolute URL/);
  assert.is(urlProblem('http://127.0.0.1:4000/hook', 'development'), undefined);
});

test('creation-time resolution refuses a name with any non-public address', async () => {
  assert.equal(await resolvesPublicOnly('hooks.example.com', fakeLookup(['93.184.216.34']) as never), { ok: true, addresses: ['93.184.216.34'] });
  assert.is((await resolvesPublicOnly('rebind.example.com', fakeLookup(['93.184.216.34', '10.0.0.5']) as never)).ok, false);
  const hidden = await resolvesPublicOnly('hidden.example.com', fakeLookup(['2606:4700:4700::1111', '64:ff9b::a00:5']) as never);
  assert.is(hidden.ok, false, 'a NAT64 answer is refused');
  assert.match(hidden.refused!, /64:ff9b::a00:5 is in the rfc6052 range/);
  assert.is((await resolvesPublicOnly('localhost')).ok, false);
});

test('the delivery-time lookup refuses a private answer, so nothing connects', async () => {
  const lookup = guardedLookup(fakeLookup(['192.168.0.10']) as never);
  const error = await new Promise<Error | null>((resolve) => lookup('internal.example.com', {}, (e) => resolve(e)));
  assert.match(String(error), /non-public/);
  assert.match(String(error), /192\.168\.0\.10 is in the private range/);
  for (const [answer, range] of [['2002:a9fe:a9fe::1', '6to4 linkLocal'], ['::7f00:1', 'ipv4Compatible loopback'], ['203.0.113.80', 'reserved'], ['2001:0:4136:e378::1', 'teredo']]) {
    const refused = await new Promise<Error | null>((resolve) => guardedLookup(fakeLookup([answer!]) as never)('sneaky.example.com', { all: true }, (e) => resolve(e)));
    assert.ok(String(refused).includes(`${range} range`), `${answer}: ${String(refused)}`);
  }
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
