// Every projection, in the order they are set up, applied and rebuilt.

import { balanceHistory } from './balance-history.ts';
import { disputeLedger } from './dispute-ledger.ts';
import { eventsFeed } from './events-feed.ts';
import { feeLedger } from './fee-ledger.ts';
import { financeLedger } from './finance-ledger.ts';
import { depositList, withdrawalList } from './order-lists.ts';
import type { Projection, ProjectionName } from './projection.ts';
import { payeeDebts } from './payee-debts.ts';
import { payerDebts } from './payer-debts.ts';
import { receivingAccounts } from './receiving-accounts.ts';
import { statementLines } from './statement-lines.ts';
import { systemLines } from './system-lines.ts';

export const projections: readonly Projection[] = [balanceHistory, eventsFeed, depositList, withdrawalList, financeLedger, feeLedger, receivingAccounts, systemLines, disputeLedger, statementLines, payerDebts, payeeDebts];

export const projectionNames: readonly ProjectionName[] = projections.map((p) => p.name);

export function projectionNamed(name: string): Projection | undefined {
  return projections.find((p) => p.name === name);
}

export const projectionSchemas: readonly string[] = projections.map((p) => p.schema);
