// A TCP port that was free a moment ago on 127.0.0.1: bound to port 0, then closed. A
// server started on it (nats-server, satang) has it unless another process took it
// meanwhile; nothing listens on it, so a connect to it is refused.

import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
