// Test support for server specs: a Koa app listening on an ephemeral port, and a logger
// whose JSON lines are kept in memory so a test can read what was logged.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { createLogger } from '../../server/log.ts';

export interface Served {
  url: string;
  close: () => Promise<void>;
}

export async function serve(app: Koa): Promise<Served> {
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

export interface CapturedLogger {
  logger: Logger;
  lines: () => Array<Record<string, unknown>>;
  text: () => string;
}

export function captureLogger(level = 'trace'): CapturedLogger {
  let text = '';
  const logger = createLogger({ level, destination: { write: (chunk: string) => { text += chunk; } } });
  return {
    logger,
    text: () => text,
    lines: () => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
