// Deliveries to a `satang listen` stream (adapters/webhooks/cli-streams.ts) without a server:
// one written to an open stream is delivered; one to a stream gone, or ended because its key
// no longer admits it, is retried with an error that opens with its code, as every other
// delivery error does (`http_500`, `timeout_first_byte: …`): the dispatcher's log keeps the
// error's first word as its code, and read "the" for this one.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CliAwarePoster, CliStreams, cliEndpointUrl } from '../../adapters/webhooks/cli-streams.ts';
import type { Poster, PostResult } from '../../adapters/webhooks/http-post.ts';

const noHttp: Poster = {
  post: async (): Promise<PostResult> => { throw new Error('an HTTP post was not expected'); },
  close: () => {},
};

test('a delivery to an open stream is written and delivered; to a stream gone or ended, retried with an error that opens with its code', async () => {
  const streams = new CliStreams();
  const poster = new CliAwarePoster(noHttp, streams);
  const written: string[] = [];
  streams.add('open', { write: (chunk) => { written.push(chunk); return true; }, end: () => {} });
  streams.add('revoked', { write: (chunk) => { written.push(chunk); return true; }, end: () => {}, admits: () => false });
  const headers = { 'X-PG-Delivery-Id': 'whd_1' };
  const delivered = await poster.post(cliEndpointUrl('open'), headers, Buffer.from('{}'));
  assert.is(delivered.outcome, 'delivered');
  assert.is(written.length, 1);
  for (const stream of ['gone', 'revoked']) {
    const r = await poster.post(cliEndpointUrl(stream), headers, Buffer.from('{}'));
    assert.is(r.outcome, 'retry', stream);
    assert.match(r.error ?? '', /^stream_not_connected: /, `${stream}: ${r.error}`);
  }
  assert.is(written.length, 1, 'nothing written to a stream that does not admit it');
});

test.run();
