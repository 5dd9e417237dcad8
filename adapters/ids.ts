// The Ids port: `${prefix}_${ULID}` from ulid's monotonic factory, one per merchant, so a
// merchant's ids made within one millisecond still sort in creation order, and no merchant
// sees in its own ids a gap that counts another's work, or an id one step from another's.
// Beneficiary ids are the contract's exception: `ben_` + 32 lowercase hex characters, the
// same 128 bits written in hex. Invariant kept: the factories belong to the Ids instance —
// nothing process-global that a second shard would share.
// The random part comes from the system CSPRNG drawn in blocks (ulid's default asks the
// OS for one byte per character, a measurable cost on the journal's hot path).

import { createHash, randomFillSync } from 'node:crypto';
import { encodeTime, isValid, monotonicFactory, ulid } from 'ulid';
import type { Ids } from '../core/ports.ts';

const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const randomBlockBytes = 4096;

/** A PRNG for ulid: uniform fractions k/256, as ulid's own, from a CSPRNG-filled block (one per factory). */
export function blockRandom(): () => number {
  const block = new Uint8Array(randomBlockBytes);
  let next = block.length;
  return () => {
    if (next === block.length) { randomFillSync(block); next = 0; }
    return block[next++]! / 256;
  };
}

/** A 26-character ULID as 32 lowercase hex characters (the same 128 bits, order kept). */
export function ulidToHex(ulid: string): string {
  let value = 0n;
  for (const ch of ulid) value = (value << 5n) | BigInt(crockford.indexOf(ch));
  return value.toString(16).padStart(32, '0');
}

/**
 * A ULID made again, identically, from what it names, for a record that is redone from
 * durable inputs after a commit that was not fsynced (a webhook fan-out), so it keeps its
 * id. When `of` ends in a ULID (`evt_…`): that ULID with the first 20 bits of its random
 * part replaced by the first 20 of SHA-256(`name`), so the records of one `name` sort as
 * their `of`s do (a monotonic factory's ids differ in their last bits). Otherwise a ULID
 * at `timeMs` whose random part is SHA-256 of both.
 */
export function derivedUlid(of: string, name: string, timeMs: number): string {
  const base = of.slice(of.indexOf('_') + 1);
  if (isValid(base)) return base.slice(0, 10) + crockfordBits(createHash('sha256').update(name).digest(), 4) + base.slice(14);
  return encodeTime(timeMs, 10) + crockfordBits(createHash('sha256').update(`${name}\n${of}`).digest(), 16);
}

/** The first 5 × `chars` bits of `bytes` in Crockford's base 32, most significant first. */
function crockfordBits(bytes: Uint8Array, chars: number): string {
  let text = '';
  let bits = 0, held = 0; // bits read and not yet written
  for (let i = 0; text.length < chars; i++) {
    bits = (bits << 8) | bytes[i]!;
    for (held += 8; held >= 5 && text.length < chars; held -= 5) text += crockford[(bits >> (held - 5)) & 31];
    bits &= (1 << held) - 1;
  }
  return text;
}

/**
 * Prefixes whose ids take a fresh random part rather than the monotonic factory's next: a
 * deposit's legs are made with the deposit, and the withdrawing merchant sees its side's
 * leg_ref; consecutive ids (the deposit's ULID + 1, + 2) would let it join that leg to the
 * depositor's order, which the contract rules out ("cannot be joined across merchants").
 */
const unlinkedPrefixes = new Set(['leg']);

export class UlidIds implements Ids {
  private readonly random = blockRandom();
  /** The platform's own records (white labels, merchants, operator records). */
  private readonly platform = monotonicFactory(this.random);
  /** One factory per merchant: as many as there are merchants, each a closure of two fields. */
  private readonly byMerchant = new Map<string, () => string>();

  next(prefix: string, merchantId?: string): string {
    const id = unlinkedPrefixes.has(prefix) ? ulid(undefined, this.random) : this.factory(merchantId)();
    return prefix === 'ben' ? `ben_${ulidToHex(id)}` : `${prefix}_${id}`;
  }

  private factory(merchantId: string | undefined): () => string {
    if (merchantId === undefined) return this.platform;
    let f = this.byMerchant.get(merchantId);
    if (!f) this.byMerchant.set(merchantId, f = monotonicFactory(this.random));
    return f;
  }
}
