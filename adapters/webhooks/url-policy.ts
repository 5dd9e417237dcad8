// Which endpoint URLs the service may POST to (server-side request forgery guard). In
// production (SATANG_ENV=production) a URL must be https, carry no credentials, and its
// host must resolve only to public addresses — never loopback, link-local, private,
// carrier-grade NAT, unspecified, multicast or reserved ranges. The check runs when the
// endpoint is created and again on every delivery, inside the connection's own DNS
// lookup, so the address that is checked is the address that is connected to (a DNS
// answer that changes between check and use cannot slip through). Development allows
// http and local receivers (http://127.0.0.1:…), which tests and demos need.

import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { webhookLimits } from './limits.ts';

export type UrlMode = 'production' | 'development';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['100::', 64], ['2001:db8::', 32],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** True for an address a production delivery may connect to. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !blocked.check(address, 'ipv4');
  // IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses carry an IPv4 address
  // that must pass the IPv4 rules, in whichever notation they are written.
  const hextets = ipv6Hextets(address);
  const prefix = hextets.slice(0, 6).join(':');
  if (prefix === '0:0:0:0:0:65535' || prefix === '100:65435:0:0:0:0') {
    const [hi, lo] = [hextets[6]!, hextets[7]!];
    return isPublicAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return !blocked.check(address, 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address ('::' expanded, a trailing dotted quad folded in). */
function ipv6Hextets(address: string): number[] {
  let text = address.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head), right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

export class DestinationNotAllowed extends Error {
  override name = 'DestinationNotAllowed';
  readonly code = 'DESTINATION_NOT_ALLOWED';
}

/** The URL's shape: a reason when it may not be used in this mode, else undefined. */
export function urlProblem(raw: string, mode: UrlMode): string | undefined {
  if (raw.length > webhookLimits.endpointUrlLengthMax) return `the URL is longer than ${webhookLimits.endpointUrlLengthMax} characters`;
  let url: URL;
  try { url = new URL(raw); } catch { return 'not an absolute URL'; }
  if (url.username || url.password) return 'the URL must not carry credentials';
  if (url.hash) return 'the URL must not have a fragment';
  if (mode === 'production' && url.protocol !== 'https:') return 'production endpoints must use https';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the URL must be http or https';
  const host = hostOf(url);
  if (mode === 'production' && isIP(host) !== 0 && !isPublicAddress(host)) return 'the address is loopback, link-local, private or reserved';
  return undefined;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

type Lookup = typeof dnsLookup;

/** Resolves `host` and says whether every address it gives is public (creation-time check). */
export function resolvesPublicOnly(host: string, lookup: Lookup = dnsLookup): Promise<{ ok: boolean; addresses: string[]; error?: string }> {
  if (isIP(host) !== 0) return Promise.resolve({ ok: isPublicAddress(host), addresses: [host] });
  return new Promise((resolve) => {
    lookup(host, { all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return resolve({ ok: false, addresses: [], error: error.code ?? error.message });
      const list = addresses.map((a) => a.address);
      resolve({ ok: list.length > 0 && list.every(isPublicAddress), addresses: list });
    });
  });
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses non-public answers, so the connection can
 * only go to an address that passed the check. Handles both the single and the `all`
 * (Happy Eyeballs) forms Node's net.connect uses.
 */
export function guardedLookup(lookup: Lookup = dnsLookup) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses) => {
      if (error) return callback(error, '');
      const bad = addresses.find((a) => !isPublicAddress(a.address));
      if (bad || addresses.length === 0) return callback(new DestinationNotAllowed(`${hostname} resolves to a non-public address`), '');
      if ((options as LookupAllOptions).all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
