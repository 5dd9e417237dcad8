// GET /v1/test/webhooks/listen (sandbox key, merchant HMAC): the stream `satang listen`
// reads. Opening it creates a temporary webhook endpoint of type `cli` for the merchant's
// sandbox (cli://listen/<stream id>, every event type); each delivery to it is written to
// this response as a Server-Sent Event (adapters/webhooks/cli-streams.ts) with the headers
// and bytes an HTTP endpoint would get, signature included. Closing the stream — the CLI
// stopping, the connection dropping, the server shutting down — removes the endpoint with
// its deliveries. Events:
//   event: ready     data: {"endpoint_id", "livemode": false, "heartbeat_ms"}
//   event: delivery  id: <whd_…>  data: {"headers": {...}, "body_base64": "..."}
//   : keepalive      (an SSE comment every listenLimits.heartbeatMs)
//   event: closed    data: {"reason": "api_key_revoked" | "tenant_suspended"} — the key was
//                    revoked or the merchant suspended since the stream opened; then it ends

import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type Router from '@koa/router';
import type { Logger } from 'pino';
import { cliEndpointUrl } from '../../adapters/webhooks/cli-streams.ts';
import type { Webhooks } from '../../adapters/webhooks/webhooks.ts';
import { listenLimits } from '../../core/limits.ts';
import { merchantOf } from '../auth/merchant.ts';
import { ApiError } from '../errors.ts';
import { emptyQuery } from '../schemas.ts';
import { parseWith, queryOf } from './common.ts';

export const listenPath = '/listen';

/** Adds the route to `router` (mounted at /v1/test/webhooks, behind merchantAuth). */
export function addListenRoute(router: Router, webhooks: Webhooks, refusal: (keyId: string) => string | null, log?: Pick<Logger, 'error'>): void {
  router.get(listenPath, (ctx) => {
    const m = merchantOf(ctx);
    if (m.livemode) throw new ApiError('scope_denied', 'satang listen takes a sandbox key (sk_test_…).');
    parseWith(emptyQuery, queryOf(ctx));
    const streamId = randomUUID();
    const ops = webhooks.operations;
    const created = ops.transact(() => ops.createEndpoint(m.merchantId, false, cliEndpointUrl(streamId), null));
    if (!created.ok) throw ApiError.from(created.rejection);
    const endpoint = created.value;

    const stream = new PassThrough();
    const heartbeat = setInterval(() => { if (admits()) stream.write(': keepalive\n\n'); }, listenLimits.heartbeatMs);
    heartbeat.unref();
    let closed = false;
    /** The key still usable: else the stream ends with an event saying why (the CLI prints it). */
    const admits = (): boolean => {
      const why = refusal(m.key.keyId);
      if (why === null) return true;
      if (!closed) stream.write(`event: closed\ndata: ${JSON.stringify({ reason: why })}\n\n`);
      close();
      return false;
    };
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      webhooks.cliStreams.remove(streamId);
      stream.end();
      try {
        ops.transact(() => webhooks.endpoints.remove(endpoint.id));
      } catch (error) {
        // Only at shutdown, with the database already closed: the next start removes it.
        log?.error({ err: String(error), endpoint_id: endpoint.id }, 'could not remove the cli endpoint of a closed listen stream');
      }
    };
    webhooks.cliStreams.add(streamId, { write: (chunk) => stream.write(chunk), end: close, admits });
    ctx.res.on('close', close);
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.status = 200;
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Accel-Buffering', 'no'); // a buffering proxy would hold the events back
    ctx.body = stream;
    stream.write(`event: ready\ndata: ${JSON.stringify({ endpoint_id: endpoint.id, livemode: false, heartbeat_ms: listenLimits.heartbeatMs })}\n\n`);
  });
}
