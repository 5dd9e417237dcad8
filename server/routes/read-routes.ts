// The routers of the read side (served from projections.db), mounted by startServer:
// balance history, the events feed, the withdrawal list and the sandbox run reset. The
// deposit list lives on the deposits router (GET /v1/pay/deposits) and reads the same way.

import type Router from '@koa/router';
import type { Services } from '../ports.ts';
import { balanceHistoryRoutes } from './balance-history.ts';
import { eventsRoutes } from './events.ts';
import { withdrawalListRoutes } from './order-lists.ts';
import { sandboxRoutes } from './sandbox.ts';

export function readRouters(services: Services): Router[] {
  return [balanceHistoryRoutes(services), eventsRoutes(services), withdrawalListRoutes(services), sandboxRoutes(services)];
}
