// Who may call which /v1/bo route: the operator roles (DESIGN.md "Operators: roles") and
// the one table mapping every back-office route (method + the router's path pattern) to
// the roles that may call it. operatorAuth enforces it for every /v1/bo router, so a route
// is authorised here or nowhere; a route missing from the table is refused (fail closed),
// and specs/server/operator-roles.int.spec.ts fails until it has an entry. The README's
// "Operator roles" table lists the same rows.
//
// A token needs ONE of a route's roles. Reads name the roles whose work needs them:
// ops_admin sees the endpoints and deliveries it manages and the balances it adjusts.

export const operatorRoles = ['reviewer', 'approver', 'ops_admin', 'finance', 'support'] as const;
export type OperatorRole = (typeof operatorRoles)[number];

const opsAdmin = ['ops_admin'] as const;
const reviewer = ['reviewer'] as const;
const approver = ['approver'] as const;
const webhookReads = ['ops_admin', 'support'] as const;
const keyReads = ['ops_admin', 'support'] as const;
const balanceReads = ['finance', 'support', 'ops_admin'] as const;
const reviewQueueReads = ['reviewer', 'support', 'ops_admin'] as const;
const approvalQueueReads = ['approver', 'support', 'ops_admin'] as const;
const claimReads = ['ops_admin', 'support', 'finance'] as const;
const auditReads = ['finance', 'ops_admin'] as const;
const directoryReads = ['ops_admin', 'support', 'finance', 'reviewer', 'approver'] as const;
const finance = ['finance'] as const;

/** `METHOD /v1/bo/path/:param` (exactly as registered on the router) → the roles that may call it. */
export const routeRoles: Readonly<Record<string, readonly OperatorRole[]>> = {
  // onboarding, keys, suspension, adjustments, gateway routes (server/routes/bo.ts)
  'POST /v1/bo/white-labels': opsAdmin,
  'POST /v1/bo/white-labels/:id/gateway-route': opsAdmin,
  'POST /v1/bo/white-labels/:id/gateway-route/approve': opsAdmin,
  'POST /v1/bo/white-labels/:id/fees': opsAdmin,
  'POST /v1/bo/white-labels/:id/fees/approve': opsAdmin,
  'POST /v1/bo/merchants': opsAdmin,
  'POST /v1/bo/merchants/:id/keys': opsAdmin,
  'POST /v1/bo/keys/:keyId/revoke': opsAdmin,
  'POST /v1/bo/merchants/:id/suspend': opsAdmin,
  'POST /v1/bo/merchants/:id/unsuspend': opsAdmin,
  'POST /v1/bo/merchants/:id/senders': opsAdmin,
  'POST /v1/bo/merchants/:id/beneficiaries': opsAdmin,
  'POST /v1/bo/merchants/:id/adjustments': opsAdmin,
  'POST /v1/bo/merchants/:id/adjustments/:proposalId/approve': opsAdmin,
  // a sending bank down at its end: new deposits from it are refused until it is back
  'POST /v1/bo/banks/:code/availability': opsAdmin,
  'GET /v1/bo/merchants/:id/balance': balanceReads,
  'GET /v1/bo/merchants/:id/adjustment-proposals': balanceReads,
  'GET /v1/bo/adjustment-proposals': balanceReads,
  // deposit review decisions; the gateway's late confirmation and reversals are ops work
  'POST /v1/bo/deposits/:id/approve': reviewer,
  'POST /v1/bo/deposits/:id/decline': reviewer,
  'POST /v1/bo/deposits/:id/route-confirmations': opsAdmin,
  'POST /v1/bo/deposits/:id/reverse': opsAdmin,
  // withdrawal approvals
  'POST /v1/bo/withdrawals/:id/approve': approver,
  'POST /v1/bo/withdrawals/:id/reject': approver,
  'POST /v1/bo/withdrawals/:id/cancel': opsAdmin,
  // the manual test clock moves every business deadline at once: an ops_admin decision;
  // reading it is everyone's (the console's "today" is the service's)
  'GET /v1/bo/clock': directoryReads,
  // every operator may end their own session (the token they sign out with)
  'POST /v1/bo/session/sign-out': operatorRoles,
  'POST /v1/bo/clock/advance': opsAdmin,
  // webhooks (server/routes/webhooks-bo.ts)
  'POST /v1/bo/merchants/:id/webhook-endpoints': opsAdmin,
  'GET /v1/bo/merchants/:id/webhook-endpoints': webhookReads,
  // which keys a merchant has (never a secret): for a revocation, or a merchant asking which key failed
  'GET /v1/bo/merchants/:id/keys': keyReads,
  'GET /v1/bo/webhooks/:endpointId': webhookReads,
  'POST /v1/bo/webhooks/:endpointId': opsAdmin,
  'POST /v1/bo/webhooks/:endpointId/enable': opsAdmin,
  'POST /v1/bo/webhooks/:endpointId/disable': opsAdmin,
  'DELETE /v1/bo/webhooks/:endpointId': opsAdmin,
  'GET /v1/bo/webhooks/:endpointId/deliveries': webhookReads,
  'GET /v1/bo/webhooks/:endpointId/deliveries/:deliveryId': webhookReads,
  'POST /v1/bo/webhooks/:endpointId/deliveries/:deliveryId/resend': opsAdmin,
  'POST /v1/bo/webhooks/:endpointId/replay': opsAdmin,
  'POST /v1/bo/webhooks/signing-keys/rotate': opsAdmin,
  'POST /v1/bo/webhooks/signing-keys/:kid/withdraw': opsAdmin,
  'POST /v1/bo/operators/:sub/revoke': opsAdmin,
  // the back office's desk (server/routes/bo-desk.ts): queues and one order with its evidence
  'GET /v1/bo/deposits': reviewQueueReads,
  // One order, read: finance too, to check a report's figure against the order behind it.
  'GET /v1/bo/deposits/:id': [...reviewQueueReads, 'finance'],
  'GET /v1/bo/deposits/:id/slips/:receiptId/image': reviewQueueReads,
  'GET /v1/bo/withdrawals': approvalQueueReads,
  'GET /v1/bo/withdrawals/:id': [...approvalQueueReads, 'finance'],
  'POST /v1/bo/withdrawals/:id/fills/:legRef/reverse': opsAdmin,
  'POST /v1/bo/withdrawals/:id/disputes': opsAdmin,
  'GET /v1/bo/disputes/:id': [...webhookReads, 'finance'],
  'GET /v1/bo/disputes/:id/files/:fileId': [...webhookReads, 'finance'],
  'POST /v1/bo/disputes/:id/resolve': opsAdmin,
  // claims (server/routes/bo-claims.ts)
  'POST /v1/bo/claims': opsAdmin,
  'GET /v1/bo/claims': claimReads,
  'GET /v1/bo/claims/:id': claimReads,
  'POST /v1/bo/claims/:id/review': opsAdmin,
  'POST /v1/bo/claims/:id/refund': opsAdmin,
  'POST /v1/bo/claims/:id/payout': opsAdmin,
  'POST /v1/bo/claims/:id/close': opsAdmin,
  'POST /v1/bo/claims/:id/reject': opsAdmin,
  // writing off what a claim's payer owes back is finance's call: one proposes, another approves
  'POST /v1/bo/claims/:id/write-offs': finance,
  'POST /v1/bo/claims/:id/write-offs/:proposalId/approve': finance,
  // who did what (server/routes/bo-audit.ts): request logs and the action log
  'GET /v1/bo/logs': balanceReads,
  'GET /v1/bo/reports/action-logs': auditReads,
  // dashboard, wallet and the directories (server/routes/bo-reads.ts)
  'GET /v1/bo/dashboard': balanceReads,
  'GET /v1/bo/wallet': balanceReads,
  'GET /v1/bo/merchants/:id/balance-transactions': balanceReads,
  'GET /v1/bo/merchants': directoryReads,
  'GET /v1/bo/white-labels': directoryReads,
  'GET /v1/bo/white-labels/:id': directoryReads,
  // support's search for orders and claims by id or reference (server/routes/bo-search.ts)
  'GET /v1/bo/search': directoryReads,
  // finance reports (server/routes/reports.ts)
  'GET /v1/bo/reports/statements': finance,
  'GET /v1/bo/reports/trial-balance': finance,
  'GET /v1/bo/reports/receiving-accounts': finance,
  'GET /v1/bo/reports/fees': finance,
  'GET /v1/bo/reports/disputes': finance,
  'GET /v1/bo/reports/statement-lines': finance,
  'GET /v1/bo/reports/account-lines': finance,
};

/** The table's key for a request: HEAD is answered by the GET route, so it needs GET's roles. */
export function routeKey(method: string, pattern: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${pattern}`;
}

export type RoleRefusal = { readonly requiredRoles: readonly OperatorRole[]; readonly message: string };

/** Undefined when the operator holds one of the route's roles; else why not (a route without an entry is refused). */
export function roleRefusal(tokenRoles: readonly string[], method: string, pattern: string): RoleRefusal | undefined {
  const key = routeKey(method, pattern);
  const required = routeRoles[key];
  if (!required) return { requiredRoles: [], message: `${key} has no entry in the operator roles table, so no role may call it.` };
  if (required.some((role) => tokenRoles.includes(role))) return undefined;
  const held = tokenRoles.length === 0 ? 'none' : tokenRoles.join(', ');
  return { requiredRoles: required, message: `${key} needs one of the roles ${required.join(', ')}; this token has: ${held}.` };
}
