// `npm run bench:console`: how long the operator console's pages take to load with 10,000
// deposits in the review queue (issue 17: ≤ 1 s each), in Debian's Chromium.
//
// satang runs as `npm start` does (its own process, embedded default, a temp data dir);
// scripts/bench/seed-review-queue.ts fills the queue through the public API; an operator
// with every role signs in through the development OpenID provider's form. Then, for
// each page, two loads are timed until the page says its data has rendered
// (main[data-page][data-ready]):
//   - `load`: a fresh navigation to /console/#/<page> — the modules, the sign-in (the
//     provider's session makes it two redirects and a code exchange) and the page's reads;
//   - `navigate`: moving to the page inside the console (a hash change), as an operator does.
// Each is repeated (--repeat, default 5) after a warm-up; p50 and max are printed, and the
// target is checked against the max. The queue's next page (the server's cursor) is timed
// too. Runs in about three minutes, most of it seeding; never part of `npm test`.
//
// Usage: npm run bench:console [-- --deposits 10000 --repeat 5]

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { bangkokDayOf } from '../core/finance/calendar.ts';
import { launchChromium, signIn } from '../specs/support/console-browser.ts';
import { seedReviewQueue } from './bench/seed-review-queue.ts';
import { startSatangProcess, stopProcess } from './bench/satang-process.ts';

const { values } = parseArgs({ options: { deposits: { type: 'string', default: '10000' }, repeat: { type: 'string', default: '5' } } });
const deposits = Number(values.deposits);
const repeat = Number(values.repeat);
const targetMs = 1000;
const progress = (message: string) => console.error(`[bench:console] ${message}`);

interface Timing { readonly p50_ms: number; readonly max_ms: number; readonly runs: number }

function summary(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50_ms: Math.round(sorted[Math.floor(sorted.length / 2)]!), max_ms: Math.round(sorted.at(-1)!), runs: sorted.length };
}

async function timed(action: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

async function readyOf(page: Page, name: string): Promise<void> {
  await page.waitForSelector(`main[data-page="${name}"][data-ready="1"]`, { timeout: 30_000 });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'satang-bench-console-'));
  const dataDir = join(dir, 'satang');
  const { child, url } = await startSatangProcess(dataDir);
  const browser = await launchChromium();
  try {
    progress(`satang up at ${url}; seeding ${deposits} deposits under review`);
    let last = 0;
    const seeded = await seedReviewQueue({
      baseUrl: url, dataDir, count: deposits,
      onProgress: (p) => { if (p.done - last >= 1000 || p.done === p.total) { last = p.done; progress(`${p.phase} ${p.done}/${p.total}`); } },
    });
    progress(`${seeded.depositIds.length} deposits under review in ${seeded.seconds} s; signing in`);
    const lead = await signIn(browser, url, 'emp_lead');
    const page = lead.page;
    const today = bangkokDayOf(Date.now());
    const pages: [string, string][] = [
      ['queue', '#/queue'],
      ['deposit', `#/deposits/${seeded.depositIds[Math.floor(seeded.depositIds.length / 2)]}`],
      ['approvals', '#/approvals'],
      ['claims', '#/claims'],
      ['merchants', '#/merchants'],
      ['merchant', `#/merchants/${seeded.merchantId}?livemode=true`],
      ['statement', `#/statement?merchant_id=${seeded.merchantId}&livemode=true&date=${today}`],
      ['dashboard', '#/dashboard'],
    ];
    const results: Record<string, { load: Timing; navigate: Timing }> = {};
    for (const [name, hash] of pages) {
      const load: number[] = [];
      const navigate: number[] = [];
      for (let i = 0; i <= repeat; i++) {
        await page.goto('about:blank'); // a fresh document: the same URL with another hash would only be a hash change
        const ms = await timed(async () => { await page.goto(`${url}/console/${hash}`); await readyOf(page, name); });
        if (i > 0) load.push(ms); // the first is the warm-up
        await page.evaluate(() => { location.hash = '#/blank-for-bench'; });
        await readyOf(page, 'not-found').catch(() => {});
        const nav = await timed(async () => { await page.evaluate((h) => { location.hash = h; }, hash); await readyOf(page, name); });
        if (i > 0) navigate.push(nav);
      }
      results[name] = { load: summary(load), navigate: summary(navigate) };
      progress(`${name}: load p50 ${results[name].load.p50_ms} ms max ${results[name].load.max_ms} ms; navigate p50 ${results[name].navigate.p50_ms} ms`);
    }
    // The queue's next page: the server's cursor, 50 rows.
    const nextPage: number[] = [];
    for (let i = 0; i <= repeat; i++) {
      await page.goto(`${url}/console/#/queue?limit=50`);
      await readyOf(page, 'queue');
      const first = await page.getAttribute('[data-testid=queue-row]', 'data-id');
      const ms = await timed(async () => {
        await page.click('[data-testid=next-page]');
        await page.waitForFunction((id) => document.querySelector('[data-testid=queue-row]')?.getAttribute('data-id') !== id, first, { timeout: 30_000 });
        await readyOf(page, 'queue');
      });
      if (i > 0) nextPage.push(ms);
    }
    const queueTotal = await page.textContent('[data-testid=queue-total]');
    // The full queue and dashboard, for the README (screenshots/ is ignored by git).
    for (const [name, hash] of [['queue', '#/queue?limit=20'], ['dashboard', '#/dashboard']]) {
      await page.goto('about:blank');
      await page.goto(`${url}/console/${hash}`);
      await readyOf(page, name);
      await lead.screenshot(`bench-${name}`);
    }
    const worst = Math.max(...Object.values(results).flatMap((r) => [r.load.max_ms, r.navigate.max_ms]), summary(nextPage).max_ms);
    const report = {
      scenario: 'console pages with a full review queue', deposits_under_review: seeded.depositIds.length, queue_total_shown: queueTotal?.trim(),
      seeding_seconds: seeded.seconds, pages: results, queue_next_page: summary(nextPage),
      target: { max_ms: targetMs, worst_ms: worst, met: worst <= targetMs },
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown' }, chromium: browser.version(), node: process.version, date: new Date().toISOString(),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    await lead.context.close();
  } finally {
    await browser.close();
    await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
