// `npm run openapi`: writes docs/openapi.json, the OpenAPI 3.1 document of a server started
// here on a throwaway data dir (the same document GET /v1/openapi.json serves; see
// server/openapi/document.ts). specs/server/openapi.int.spec.ts fails until the committed
// file equals what this writes.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../server/main.ts';
import { documentOf } from '../server/openapi/document.ts';

export const openApiFile = new URL('../docs/openapi.json', import.meta.url).pathname;

export function serialise(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntryPoint) {
  const dataDir = mkdtempSync(join(tmpdir(), 'satang-openapi-'));
  const running = await startServer({ SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_CLOCK: 'manual', SATANG_LOG_LEVEL: 'silent' });
  try {
    writeFileSync(openApiFile, serialise(documentOf(running.app)));
    chmodSync(openApiFile, 0o644); // the server's umask made it private; this file is public documentation
    console.log(`wrote ${openApiFile}`);
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}.master-key`, { force: true });
  }
}
