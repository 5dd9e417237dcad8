// The request log's redaction (server/redact.ts) and satang verify's scan of logs.db
// (adapters/sqlite/verify-at-rest.ts) agree on what an account number in clear is: for
// every key of the shared list (core/sensitive-keys.ts accountNumberKeys, iterated, so a key
// added later is covered), in either case, as a string, a JSON number or a list, the scan
// flags a body kept as it came, and flags neither the body the redaction keeps nor a cut
// body it redacted again. It fails when one side reads a key the other does not.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanDataDir } from '../../adapters/sqlite/verify-at-rest.ts';
import { accountNumberKeys } from '../../core/sensitive-keys.ts';
import { bodyForLog, redactStoredBody } from '../../server/redact.ts';

const finding = 'logs.db: an account number (a logged body) in clear';

/** The scan's findings for a logs.db holding `text`, alone in a data dir of the right modes. */
function findingsFor(text: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'satang-redaction-at-rest-'));
  try {
    writeFileSync(join(dir, 'logs.db'), text, { mode: 0o600 });
    return scanDataDir(dir).findings;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const spellings = (key: string) => [key, key.toUpperCase()];
const values: unknown[] = ['987-654-3210', '1234567890', 1234567890, ['0812345678']];

test('every account-number key the redaction masks: the scan flags its value in clear, not the redacted body, not a cut body redacted again', () => {
  assert.ok(accountNumberKeys.length > 0);
  for (const key of accountNumberKeys.flatMap(spellings)) {
    for (const value of values) {
      const body = { amount_minor: 50000, sender: { bank_code: '014', [key]: value } };
      const clear = JSON.stringify(body);
      const what = `${key}: ${JSON.stringify(value)}`;
      assert.ok(findingsFor(clear).includes(finding), `the scan misses ${what} in clear`);
      const kept = bodyForLog(body)!;
      assert.equal(findingsFor(kept), [], `the scan flags the redaction's ${kept}`);
      const cut = redactStoredBody(`${clear.slice(0, -2)}…[truncated]`);
      assert.equal(findingsFor(cut), [], `the scan flags a cut body redacted again: ${cut}`);
    }
  }
});

test.run();
