// The bank simulator on its own port (`scripts/satang bank-sim --port N`): the protocol of
// bank-sim.ts at the root (POST /transfers, POST /verify), so SATANG_SLIP_PROVIDER_URL can
// point a satang server at it exactly as at a real provider. Bodies are JSON, read up to
// simulatorRequestBytesMax; GET / answers {status: 'ok'} for readiness checks.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BankSimulator } from './bank-sim.ts';
import { slipAdapterLimits } from '../../core/limits.ts';

export interface RunningBankSim {
  readonly url: string;
  readonly simulator: BankSimulator;
  close(): Promise<void>;
}

export async function startBankSimServer(options: { host?: string; port?: number; simulator?: BankSimulator } = {}): Promise<RunningBankSim> {
  const simulator = options.simulator ?? new BankSimulator();
  const server = createServer((req, res) => {
    answer(simulator, req, res).catch(() => send(res, 500, { error: { code: 'internal_error', message: 'The simulator failed.' } }));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`, simulator,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

async function answer(simulator: BankSimulator, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  if (req.method === 'GET' && path === '/') return send(res, 200, { status: 'ok', routes: ['POST /transfers', 'POST /verify'] });
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > slipAdapterLimits.simulatorRequestBytesMax) return send(res, 413, { error: { code: 'too_large', message: 'The request body is too large.' } }, true);
    chunks.push(chunk);
  }
  let body: unknown = undefined;
  if (total > 0) {
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(res, 400, { error: { code: 'malformed_json', message: 'The body is not JSON.' } });
    }
  }
  const result = simulator.handle(req.method ?? 'GET', path, body);
  send(res, result.status, result.body);
}

function send(res: ServerResponse, status: number, body: unknown, close = false): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...(close ? { Connection: 'close' } : {}) });
  res.end(JSON.stringify(body));
}
