// The presenters of core/present.ts for the records the merchant API does not serve on
// their own routes yet (claims): they carry livemode like every other object (contract,
// "every object and event carries livemode").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Claim } from '../../core/directory.ts';
import { presentClaim } from '../../core/present.ts';

const claim = (livemode: boolean): Claim => ({
  id: 'clm_01JGTV0000000000000000000C', kind: 'overpayment', status: 'open', depositId: 'dep_01JGTV0000000000000000000D', merchantId: 'mch_01JGTV0000000000000000000M',
  livemode, amountMinor: 500n, version: 1, createdAt: Date.UTC(2026, 0, 1), updatedAt: Date.UTC(2026, 0, 1),
});

test('a claim says its mode', () => {
  for (const livemode of [true, false]) {
    const shown = presentClaim(claim(livemode));
    assert.is(shown.object, 'claim');
    assert.is(shown.livemode, livemode);
  }
});

test.run();
