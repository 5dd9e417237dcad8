// `satang bank-sim [--port N] [--host H]`: runs the bank simulator on its own port
// (POST /transfers, POST /verify at the root) until interrupted. Point a server at it with
// SATANG_SLIP_PROVIDER_URL=http://H:N, and register transfers there before uploading slips.

import { startBankSimServer } from '../../adapters/slips/bank-sim-server.ts';
import { parseCommand, text, usageError, type CommandSpec } from './args.ts';

const portMax = 65_535;

export const bankSimSpec: CommandSpec = {
  usage: 'satang bank-sim',
  summary: 'Runs the bank simulator (a slip verification provider: POST /transfers, POST /verify) on its own port until interrupted.',
  options: {
    port: { type: 'string', value: 'N', default: '8090', integer: true, min: 0, max: portMax, help: 'the port to listen on (0: a free one)' },
    host: { type: 'string', value: 'HOST', default: '127.0.0.1', help: 'the address to listen on' },
  },
  notes: ['Start the server with SATANG_SLIP_PROVIDER_URL=http://HOST:N to verify slips here.'],
};

export async function bankSimCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(bankSimSpec, argv);
  if (typeof args === 'number') return args;
  const port = Number(text(args, 'port'));
  const running = await startBankSimServer({ host: text(args, 'host'), port });
  console.log(`bank simulator listening on ${running.url} (POST /transfers, POST /verify); use SATANG_SLIP_PROVIDER_URL=${running.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => { running.close().then(resolve, resolve); };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
