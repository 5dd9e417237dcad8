// Who may upload a slip (contract: "Order capability"): only the bearer of the order's
// slip_upload token, with no API key and no PG-* header. The token's Ed25519 signature is
// checked with node:crypto (CapabilitySigner), then every claim against the request and the
// order as it is now: audience pg-slip-ingest, scope slip:write, API version, the request
// URL byte for byte against htu, and tenant, mode and reservation (hold_until) against the
// deposit. The API key that created the order plays no part, so revoking or freezing it
// later does not stop the capability. Every refusal here is 401 signature_invalid, which
// carries no details: the caller learns nothing about which claim failed.
//
// A token past its exp is still read (expired: true) so the route can let the core answer
// for the order (410 late_slip_window_closed once the late window has closed) before it
// refuses the token itself.

import type { Context } from 'koa';
import type { Deposit } from '../../core/deposit/state.ts';
import { authorizationHeadersSent, bearer } from '../auth/merchant.ts';
import type { CapabilityClaims, CapabilitySigner } from '../capability.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';

export interface Admitted {
  readonly claims: CapabilityClaims;
  readonly deposit: Deposit;
  readonly expired: boolean;
}

const refused = (message: string) => new ApiError('signature_invalid', message);

/** The signature-valid claims of the request's bearer token, or null (no judgement yet). */
export function tokenClaims(ctx: Context, signer: CapabilitySigner): CapabilityClaims | null {
  const token = bearer(ctx);
  if (token === undefined || token.startsWith('sk_live_') || token.startsWith('sk_test_')) return null;
  return signer.read(token);
}

export function admit(ctx: Context, claims: CapabilityClaims | null, services: Services, uploadUrl: string, apiVersion: string): Admitted {
  const token = bearer(ctx);
  if (token?.startsWith('sk_live_') || token?.startsWith('sk_test_')) {
    throw refused('Slip upload takes the slip_upload token as its bearer, never an API key.');
  }
  if (Object.keys(ctx.headers).some((h) => h.startsWith('pg-'))) {
    throw refused('Slip upload takes only Authorization: Bearer <slip_upload.token> and Idempotency-Key; send no PG-* header.');
  }
  if (token === undefined) {
    throw refused(authorizationHeadersSent(ctx) > 1
      ? 'Send one Authorization header, Bearer <slip_upload.token>; this request has more than one.'
      : 'Give the slip_upload token as Authorization: Bearer <token>.');
  }
  if (claims === null) throw refused('The slip_upload token is not valid.');
  if (claims.aud !== 'pg-slip-ingest' || claims.scope !== 'slip:write' || claims.api_version !== apiVersion) throw refused('The slip_upload token is not valid.');
  // upload_url must be used byte for byte: the request target as sent, on the upload origin.
  if (claims.htu !== uploadUrl + ctx.originalUrl || claims.deposit_id !== ctx.params.id) throw refused('The slip_upload token is not valid for this URL.');
  const deposit = services.write.world.deposits.get(claims.deposit_id);
  if (!deposit) throw new ApiError('resource_not_found', 'No such deposit.');
  const merchant = services.write.world.merchants.get(deposit.merchantId);
  if (!merchant || deposit.merchantId !== claims.tenant || deposit.livemode !== claims.livemode) throw refused('The slip_upload token is not valid for this order.');
  // The token names the reservation it was issued for; a replaced one voids it.
  if (deposit.expiresAt !== claims.hold_until) throw refused('The slip_upload token belongs to an earlier reservation of this order; ask for a new one.');
  (ctx.state as { slipCapability?: string }).slipCapability = claims.deposit_id; // an identity: server/app.ts counts strangers' refusals
  // Whose order the upload is for, for the request log's row (the merchant, its mode, the deposit).
  (ctx.state as { slipOrder?: { merchantId: string; livemode: boolean; depositId: string } }).slipOrder = { merchantId: deposit.merchantId, livemode: deposit.livemode, depositId: deposit.id };
  return { claims, deposit, expired: services.write.clock.now() > claims.exp * 1000 };
}
