import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Koa from 'koa';
import { createRequestIdGenerator, newRequestId, requestIdMiddleware, requestIdOf } from '../../server/request-id.ts';
import { serve } from './support.ts';

const requestIdPattern = /^req_[0-9A-HJKMNP-TV-Z]{26}$/; // Crockford base32 ULID

test('generated ids are req_ + ULID, unique and increasing within one millisecond burst', () => {
  const generate = createRequestIdGenerator();
  const ids = Array.from({ length: 1000 }, generate);
  for (const id of ids) assert.match(id, requestIdPattern);
  assert.is(new Set(ids).size, ids.length);
  assert.equal([...ids].sort(), ids, 'monotonic: sorted order is creation order');
  assert.match(newRequestId(), requestIdPattern);
});

test('the middleware sets ctx.state.requestId and both response headers to the same id', async () => {
  const app = new Koa();
  app.use(requestIdMiddleware());
  app.use(async (ctx) => {
    ctx.body = { seen: requestIdOf(ctx) };
  });
  const server = await serve(app);
  try {
    const res = await fetch(server.url, { headers: { 'Request-Id': 'req_client_chosen' } });
    const body = (await res.json()) as { seen: string };
    assert.match(body.seen, requestIdPattern);
    assert.is(res.headers.get('request-id'), body.seen);
    assert.is(res.headers.get('x-request-id'), body.seen);
    const again = await fetch(server.url);
    assert.is.not(again.headers.get('request-id'), body.seen, 'a new id per request');
  } finally {
    await server.close();
  }
});

test('a client-supplied id is never echoed', async () => {
  const app = new Koa();
  app.use(requestIdMiddleware(() => 'req_FROM_SERVER'));
  app.use(async (ctx) => {
    ctx.body = 'ok';
  });
  const server = await serve(app);
  try {
    const res = await fetch(server.url, { headers: { 'Request-Id': 'req_client_chosen', 'X-Request-Id': 'req_client_chosen' } });
    assert.is(res.headers.get('request-id'), 'req_FROM_SERVER');
    assert.is(res.headers.get('x-request-id'), 'req_FROM_SERVER');
  } finally {
    await server.close();
  }
});

test('requestIdOf is undefined before the middleware ran', () => {
  assert.is(requestIdOf({ state: {} }), undefined);
  assert.is(requestIdOf({ state: { requestId: 'req_A' } }), 'req_A');
});

test.run();
