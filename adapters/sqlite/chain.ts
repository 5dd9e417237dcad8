// A journal entry as a row, and the hash chain over the rows. Invariants kept: each row's
// hash = sha256(prev_hash ‖ canonical(row)) with prev_hash the previous row's hash (64 zeros
// before the first); the canonical encoding is the hashed columns in the pinned order of
// `hashedColumns`, each written as `<utf-8 byte length>:<text>` (or `~` for NULL), so no
// value can run into its neighbour whatever characters it holds.

import { createHash } from 'node:crypto';
import { decode, encode, type JournalEntry } from '../../core/journal.ts';

export const genesisHash = '0'.repeat(64);

/**
 * The hashed columns, in the order the canonical encoding takes them. Changing this order
 * (or the encoding below) breaks every existing chain: it is a storage format.
 */
export const hashedColumns = ['seq', 'stream', 'kind', 'version', 'type', 'livemode', 'merchant_id', 'recorded_at', 'data'] as const;

/** The hashed column values of one row, in hashedColumns order. */
export type HashedValues = readonly [
  seq: number, stream: string, kind: string, version: number, type: string,
  livemode: 0 | 1 | null, merchantId: string | null, recordedAt: number, data: string,
];

/** A row as read back: the hashed values, then prev_hash and hash. */
export type StoredRow = readonly [...HashedValues, prevHash: string, hash: string];

export const selectColumns = `${hashedColumns.join(', ')}, prev_hash, hash`;

function field(value: string | number | null): string {
  if (value === null) return '~';
  const text = typeof value === 'number' ? String(value) : value;
  return `${Buffer.byteLength(text)}:${text}`;
}

export function canonical(values: HashedValues | StoredRow): string {
  let out = '';
  for (let i = 0; i < hashedColumns.length; i++) out += field(values[i] as string | number | null);
  return out;
}

export function chainHash(prevHash: string, values: HashedValues | StoredRow): string {
  return createHash('sha256').update(prevHash).update(canonical(values)).digest('hex');
}

export function entryValues(seq: number, entry: JournalEntry): HashedValues {
  return [
    seq, entry.stream, entry.streamKind, entry.version, entry.type,
    entry.livemode === null ? null : entry.livemode ? 1 : 0, entry.merchantId, entry.recordedAt, encode(entry.event),
  ];
}

export function rowEntry(row: HashedValues | StoredRow): JournalEntry {
  const livemode = row[5];
  return {
    stream: row[1], streamKind: row[2] as JournalEntry['streamKind'], version: row[3], type: row[4] as JournalEntry['type'],
    livemode: livemode === null ? null : livemode === 1, merchantId: row[6], recordedAt: row[7], event: decode(row[8]),
  };
}

/** Where a walk of the chain first found a row that does not fit. */
export interface ChainBreak {
  readonly seq: number;
  readonly reason: string;
}

/** Checks one row against the previous seq and hash; null when it fits. */
export function checkLink(row: StoredRow, previousSeq: number, previousHash: string): ChainBreak | null {
  const seq = row[0];
  if (seq !== previousSeq + 1) return { seq, reason: `seq ${seq} follows ${previousSeq}` };
  if (row[9] !== previousHash) return { seq, reason: `prev_hash of seq ${seq} is not the hash of seq ${previousSeq}` };
  if (chainHash(previousHash, row) !== row[10]) return { seq, reason: `hash of seq ${seq} does not match its content` };
  return null;
}
