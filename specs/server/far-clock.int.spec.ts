// Business time far in the future. The manual clock can be advanced a year per call; the
// API's instants are RFC 3339 with four-digit years, which end in 9999. The clock stops at
// writeSideLimits.manualClockMsMax, a century short of that: an advance past it is a 422
// validation_error that leaves the clock where it was, and everything the API answers at
// that time (a deposit read, a deposit created, the clock itself) is a valid timestamp,
// never a 500.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeSideLimits } from '../../core/limits.ts';
import { isoMsMax } from '../../core/present.ts';
import { depositBody, TestServer } from '../support/server-harness.ts';
import { assertTimestamp, expectError } from '../support/api-checks.ts';

const yearSeconds = writeSideLimits.manualClockAdvanceSecondsMax;

test('the manual clock stops short of year 9999; reads, creates and the clock answer valid timestamps, never a 500', async () => {
  const s = await TestServer.start();
  try {
    const m = await s.onboard();
    const created = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
    assert.ok(created.status === 201 || created.status === 202, created.text);
    // Millennia of business time, timers firing on the way (the route moves a year per call).
    await s.running.services.write.advanceClock!(writeSideLimits.manualClockMsMax - s.clock.now() - 60_000);

    const before = s.clock.now();
    const refused = expectError(await s.bo('POST', '/v1/bo/clock/advance', { seconds: yearSeconds }), 'validation_error');
    assert.equal(refused.details.fields[0].path, 'seconds');
    assert.match(refused.message, /at most 60 s/);
    assert.is(s.clock.now(), before, 'a refused advance leaves the clock where it was');

    const advanced = await s.bo('POST', '/v1/bo/clock/advance', { seconds: 60 });
    assert.is(advanced.status, 200, advanced.text);
    assertTimestamp(advanced.json.now, 'now');
    assert.is(Date.parse(advanced.json.now), writeSideLimits.manualClockMsMax);
    expectError(await s.bo('POST', '/v1/bo/clock/advance', { seconds: 1 }), 'validation_error');

    const read = await s.call(m.live.api_key, 'GET', `/v1/pay/deposits/${created.json.id}`);
    assert.is(read.status, 200, read.text);
    assertTimestamp(read.json.created_at, 'created_at');
    const late = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ expires_in_seconds: 86_400 }));
    assert.ok(late.status === 201 || late.status === 202, late.text);
    assertTimestamp(late.json.created_at, 'created_at');
    assertTimestamp(late.json.expires_at, 'expires_at');
    assert.ok(Date.parse(late.json.expires_at) <= isoMsMax);
  } finally {
    await s.stop();
  }
});

test.run();
