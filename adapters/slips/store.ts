// The slip object store on disk ($SATANG_DATA_DIR/slips/): one intake record per receipt
// (`<receipt_id>.json`: deposit, evidence fingerprint, what the verifier needs), for
// image slips the decoded image bytes (`<receipt_id>.img`), a dispute's evidence files
// (`<dfile_id>.bin`, the merchant's bytes as sent), and for a slip uploaded after
// settlement a marker once its verification is done (`<receipt_id>.verified`). Invariants kept: put()
// resolves only once every file and the directory entries naming them are on disk —
// each file is written under a temporary name, fsynced, renamed into place, and the
// directory is fsynced after the renames — so a receipt the journal names always has its
// evidence; a failed put leaves no file under a final name that was not there before
// (temporary files are removed, and swept at start). Receipt ids are checked to be plain
// names, so no path can escape the directory.

import { mkdirSync, openSync, closeSync, fsyncSync, readdirSync, rmSync } from 'node:fs';
import { open, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';

/** What an upload proved, as stored for the verification worker and for reviewers. */
export type StoredEvidence =
  | { readonly kind: 'image'; readonly mediaType: string; readonly imageSha256: string; readonly imageBytes: number; readonly payload?: string }
  | { readonly kind: 'no_image'; readonly transRef: string; readonly sendingBankCode: string; readonly occurredAt: number };

export interface IntakeRecord {
  readonly receiptId: string;
  readonly depositId: string;
  readonly livemode: boolean;
  /** The versioned evidence fingerprint (idempotency compares it). */
  readonly fingerprint: string;
  readonly evidence: StoredEvidence;
}

export interface SlipStore {
  /** Writes the record (and the image) durably; resolves only when both are on disk. */
  put(record: IntakeRecord, image?: Uint8Array): Promise<void>;
  record(receiptId: string): Promise<IntakeRecord | undefined>;
  image(receiptId: string): Promise<Buffer | undefined>;
  /** Removes a receipt's files (evidence of an upload the core refused). */
  remove(receiptId: string): Promise<void>;
  /** Notes that a receipt's verification is recorded where the journal cannot show it (a slip after settlement). */
  markVerified(receiptId: string): Promise<void>;
  isVerified(receiptId: string): Promise<boolean>;
  /** Keeps what the verifier answered for a receipt, masked (the back office shows it beside what was expected). */
  putAnswer(receiptId: string, answer: ProviderAnswer): Promise<void>;
  answer(receiptId: string): Promise<ProviderAnswer | undefined>;
}

/** The verifier's answer as kept: the transfer the bank knows, with accounts and names masked. */
export interface ProviderAnswer {
  readonly kind: 'found' | 'not_found' | 'unreadable' | 'provider_unavailable' | 'no_image';
  readonly transfer?: {
    readonly trans_ref: string;
    readonly amount_minor: string;
    readonly occurred_at: string;
    readonly sender: { readonly bank_code: string; readonly account_number_masked: string; readonly name_masked: string };
    readonly receiver: { readonly bank_code: string; readonly account_number_masked: string; readonly name_masked: string };
  };
}

export interface DiskSlipStoreOptions {
  /** How a file or directory handle is flushed to disk (tests inject a failing one). */
  readonly fsync?: (handle: FileHandle) => Promise<void>;
}

const receiptIdPattern = /^rcpt_[0-9A-Za-z]{1,64}$/;
/** A dispute evidence file's id: `dfile_` and 32 lower-case hex digits (drawn at random by the route that stores it). */
export const evidenceFileIdPattern = /^dfile_[0-9a-f]{32}$/;
/** Part of a file's name while it is being written (backup.ts leaves such files out). */
export const slipTemporaryMarker = '.tmp-';

export class DiskSlipStore implements SlipStore {
  private readonly fsync: (handle: FileHandle) => Promise<void>;

  constructor(readonly dir: string, options: DiskSlipStoreOptions = {}) {
    this.fsync = options.fsync ?? ((handle) => handle.sync());
    const created = mkdirSync(dir, { recursive: true }) !== undefined;
    if (created) syncDirectory(dirname(dir)); // the new directory's own entry must survive a crash too
    for (const name of readdirSync(dir)) if (name.includes(slipTemporaryMarker)) rmSync(join(dir, name), { force: true });
  }

  async put(record: IntakeRecord, image?: Uint8Array): Promise<void> {
    const base = this.base(record.receiptId);
    if (image !== undefined) await this.writeFile(`${base}.img`, image);
    await this.writeFile(`${base}.json`, Buffer.from(JSON.stringify(record)));
    const dir = await open(this.dir, 'r');
    try {
      await this.fsync(dir);
    } finally {
      await dir.close();
    }
  }

  async record(receiptId: string): Promise<IntakeRecord | undefined> {
    const text = await readIfExists(`${this.base(receiptId)}.json`);
    return text === undefined ? undefined : (JSON.parse(text.toString('utf8')) as IntakeRecord);
  }

  image(receiptId: string): Promise<Buffer | undefined> {
    return readIfExists(`${this.base(receiptId)}.img`);
  }

  async remove(receiptId: string): Promise<void> {
    const base = this.base(receiptId);
    await rm(`${base}.json`, { force: true });
    await rm(`${base}.img`, { force: true });
    await rm(`${base}.answer.json`, { force: true });
  }

  // Not fsynced: a marker lost in a crash only means the slip is verified once more.
  async markVerified(receiptId: string): Promise<void> {
    await writeFile(`${this.base(receiptId)}.verified`, '');
  }

  async isVerified(receiptId: string): Promise<boolean> {
    return (await readIfExists(`${this.base(receiptId)}.verified`)) !== undefined;
  }

  // Not fsynced either: it is what the journal's verdicts were decided from, kept for people to read.
  async putAnswer(receiptId: string, answer: ProviderAnswer): Promise<void> {
    await writeFile(`${this.base(receiptId)}.answer.json`, JSON.stringify(answer), { mode: 0o600 });
  }

  async answer(receiptId: string): Promise<ProviderAnswer | undefined> {
    const text = await readIfExists(`${this.base(receiptId)}.answer.json`);
    return text === undefined ? undefined : (JSON.parse(text.toString('utf8')) as ProviderAnswer);
  }

  /** A dispute evidence file (`dfile_` id): on disk, as put() writes, before the journal names it. */
  async putFile(fileId: string, bytes: Uint8Array): Promise<void> {
    await this.writeFile(this.filePath(fileId), bytes);
    const dir = await open(this.dir, 'r');
    try {
      await this.fsync(dir);
    } finally {
      await dir.close();
    }
  }

  file(fileId: string): Promise<Buffer | undefined> {
    return readIfExists(this.filePath(fileId));
  }

  /** Removes an evidence file the core refused to record. */
  async removeFile(fileId: string): Promise<void> {
    await rm(this.filePath(fileId), { force: true });
  }

  private filePath(fileId: string): string {
    if (!evidenceFileIdPattern.test(fileId)) throw new Error(`slip store: ${JSON.stringify(fileId)} is not an evidence file id`);
    return join(this.dir, `${fileId}.bin`);
  }

  private base(receiptId: string): string {
    if (!receiptIdPattern.test(receiptId)) throw new Error(`slip store: ${JSON.stringify(receiptId)} is not a receipt id`);
    return join(this.dir, receiptId);
  }

  private async writeFile(path: string, bytes: Uint8Array): Promise<void> {
    const temporary = `${path}${slipTemporaryMarker}${randomUUID()}`;
    try {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
        await this.fsync(handle);
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}

async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function syncDirectory(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
