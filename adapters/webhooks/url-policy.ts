// Which endpoint URLs the service may POST to (server-side request forgery guard). In
// production (SATANG_ENV=production) a URL must be https, carry no credentials, and its
// host must resolve only to public unicast addresses. Addresses are classified by
// ipaddr.js's range table (kept up to date with the IANA special-purpose registries), not
// by a hand-written list: anything it does not call 'unicast' is refused — loopback,
// private, link-local, carrier-grade NAT, unspecified, broadcast, multicast, discard,
// reserved (which includes the documentation nets 192.0.2.0/24, 198.51.100.0/24,
// 203.0.113.0/24 and 2001:db8::/32), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), SIIT, Teredo
// and the rest. IPv6 forms that carry an IPv4 address — IPv4-mapped (::ffff:0:0/96),
// IPv4-compatible (::/96, which ipaddr.js calls unicast) and 6to4 (2002::/16) — are
// judged by the IPv4 address they carry. The check runs when the endpoint is created and
// again on every delivery, inside the connection's own DNS lookup, so the address that is
// checked is the address that is connected to (a DNS answer that changes between check
// and use cannot slip through). Development checks none of it — http and any address,
// local receivers (http://127.0.0.1:…) being what tests and demos need.

import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { webhookLimits } from '../../core/limits.ts';

export type UrlMode = 'production' | 'development';

/** Whether a delivery may connect to an address; a refusal names the range that refuses it. */
export type AddressVerdict = { readonly ok: true } | { readonly ok: false; readonly range: string };

/** The IPv6 forms whose last 32 bits (or, for 6to4, bits 16–48) are an IPv4 address that decides. */
function embeddedIpv4(address: ipaddr.IPv6, range: string): { form: string; ipv4: ipaddr.IPv4 } | undefined {
  const p = address.parts;
  const ipv4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  if (range === 'ipv4Mapped') return { form: 'ipv4Mapped', ipv4: address.toIPv4Address() };
  if (range === '6to4') return { form: '6to4', ipv4: ipv4(p[1]!, p[2]!) };
  // ::/96 is ranged 'unicast' except :: (unspecified) and ::1 (loopback), which stay as ranged.
  if (range === 'unicast' && p.slice(0, 6).every((part) => part === 0)) return { form: 'ipv4Compatible', ipv4: ipv4(p[6]!, p[7]!) };
  return undefined;
}

/**
 * The address as the WHATWG URL parser writes it (hex groups, '::' compressed), or
 * undefined when it has a zone id or otherwise is no URL host. ipaddr.js reads '::a.b.c.d'
 * as IPv4-mapped (::ffff:a.b.c.d) though it is IPv4-compatible (::/96); the hex form
 * leaves nothing for it to guess.
 */
function canonicalIpv6(address: string): string | undefined {
  try { return new URL(`http://[${address}]/`).hostname.slice(1, -1); } catch { return undefined; }
}

/** Public unicast or not, by ipaddr.js's ranges; `address` must be a plain IP literal (no brackets). */
export function classifyAddress(address: string): AddressVerdict {
  // isIP first: ipaddr.parse also takes loose IPv4 forms ('127.1', '0x7f.0.0.1') that are not addresses here.
  const family = isIP(address);
  if (family === 4) return verdictOf(ipaddr.IPv4.parse(address).range());
  const canonical = family === 6 ? canonicalIpv6(address) : undefined;
  if (canonical === undefined) return { ok: false, range: 'not an IP address' };
  const v6 = ipaddr.IPv6.parse(canonical);
  const range = v6.range();
  const embedded = embeddedIpv4(v6, range);
  if (!embedded) return verdictOf(range);
  const inner = embedded.ipv4.range();
  return inner === 'unicast' ? { ok: true } : { ok: false, range: `${embedded.form} ${inner}` };
}

function verdictOf(range: string): AddressVerdict {
  return range === 'unicast' ? { ok: true } : { ok: false, range };
}

/** True for an address a production delivery may connect to. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).ok;
}

/** Why `address` is refused, for messages: "10.0.0.5 is in the private range". */
function refusalText(address: string, verdict: AddressVerdict): string {
  return verdict.ok ? '' : verdict.range === 'not an IP address' ? `${address} is not an IP address` : `${address} is in the ${verdict.range} range, not a public unicast address`;
}

export class DestinationNotAllowed extends Error {
  override name = 'DestinationNotAllowed';
  readonly code = 'DESTINATION_NOT_ALLOWED';
}

/** The URL's shape: a reason when it may not be used in this mode, else undefined. */
export function urlProblem(raw: string, mode: UrlMode): string | undefined {
  if (raw.length > webhookLimits.endpointUrlLengthMax) return `the URL is longer than ${webhookLimits.endpointUrlLengthMax} characters`;
  // The WHATWG parser would drop them and the endpoint be stored with them: the URL as it will be called, nothing around it.
  if (raw !== raw.trim()) return 'the URL has spaces around it';
  let url: URL;
  try { url = new URL(raw); } catch { return 'not an absolute URL'; }
  if (url.username || url.password) return 'the URL must not carry credentials';
  if (url.hash || url.href.endsWith('#')) return 'the URL must not have a fragment';
  if (url.href.length > webhookLimits.endpointUrlLengthMax) return `the URL is longer than ${webhookLimits.endpointUrlLengthMax} characters once encoded`;
  if (mode === 'production' && url.protocol !== 'https:') return 'production endpoints must use https';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the URL must be http or https';
  const host = hostOf(url);
  if (mode === 'production' && isIP(host) !== 0) {
    const verdict = classifyAddress(host);
    if (!verdict.ok) return `the address ${refusalText(host, verdict)}`;
  }
  return undefined;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** How a host name resolves: node:dns's lookup, or one of its shape (a spec's own resolver). */
export type Lookup = typeof dnsLookup;

export interface Resolution {
  readonly ok: boolean;
  readonly addresses: string[];
  /** The DNS failure (code), when the name did not resolve. */
  readonly error?: string;
  /** The first answer refused, and why ("10.0.0.5 is in the private range, …"). */
  readonly refused?: string;
}

/** Resolves `host` and says whether every address it gives is public (creation-time check). */
export function resolvesPublicOnly(host: string, lookup: Lookup = dnsLookup): Promise<Resolution> {
  if (isIP(host) !== 0) {
    const verdict = classifyAddress(host);
    return Promise.resolve({ ok: verdict.ok, addresses: [host], ...(verdict.ok ? {} : { refused: refusalText(host, verdict) }) });
  }
  return new Promise((resolve) => {
    lookup(host, { all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return resolve({ ok: false, addresses: [], error: error.code ?? error.message });
      const list = addresses.map((a) => a.address);
      if (list.length === 0) return resolve({ ok: false, addresses: list, error: 'no addresses' });
      const bad = firstRefused(list);
      resolve({ ok: bad === undefined, addresses: list, ...(bad ? { refused: bad } : {}) });
    });
  });
}

/** The refusal text of the first address that is not public, if any. */
function firstRefused(addresses: readonly string[]): string | undefined {
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (!verdict.ok) return refusalText(address, verdict);
  }
  return undefined;
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
      if (addresses.length === 0) return callback(new DestinationNotAllowed(`${hostname} resolves to no address`), '');
      const bad = firstRefused(addresses.map((a) => a.address));
      if (bad) return callback(new DestinationNotAllowed(`${hostname} resolves to a non-public address: ${bad}`), '');
      if ((options as LookupAllOptions).all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
