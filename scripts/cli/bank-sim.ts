// `satang bank-sim [--port N] [--host H]`: runs the bank simulator on its own port
// (POST /transfers, POST /verify at the root) until interrupted. Point a server at it with
// SATANG_SLIP_PROVIDER_URL=http://H:N, and register transfers there before uploading slips.

import { startBankSimServer } from '../../adapters/slips/bank-sim-server.ts';
import { option, type Args } from './args.ts';

export async function bankSimCommand(args: Args): Promise<number> {
  const port = Number(option(args, 'port', '8090'));
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error('--port must be a port number');
  const running = await startBankSimServer({ host: option(args, 'host', '127.0.0.1'), port });
  console.log(`bank simulator listening on ${running.url} (POST /transfers, POST /verify); use SATANG_SLIP_PROVIDER_URL=${running.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => { running.close().then(resolve, resolve); };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
