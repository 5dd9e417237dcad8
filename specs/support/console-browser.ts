// Debian's Chromium, headless, driven by playwright-core, for the console's end-to-end specs
// and the page-load benchmark. Each operator gets a browser context of their own (their
// own cookies at the OpenID provider) and signs in through the provider's form, as a
// person does. Screenshots go to screenshots/ at the repository root (ignored by git).

import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { devOperatorPassword } from '../../server/auth/dev-operators.ts';
import type { Test } from 'uvu';
import { slipScene, type SlipScene } from './slip-harness.ts';

export const chromiumPath = process.env.SATANG_CHROMIUM ?? '/usr/bin/chromium';
const root = new URL('../..', import.meta.url).pathname;
export const screenshotDir = join(root, 'screenshots');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium is not at ${chromiumPath}: apt-get install chromium (or set SATANG_CHROMIUM)`);
  return chromium.launch({
    executablePath: chromiumPath, headless: true,
    // As root in a sandbox without a GPU or network beyond loopback (see the machine notes).
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** Closes each operator's context (one that fails to close does not keep the others open), then the browser. */
export async function closeSessions(browser: Browser | undefined, sessions: readonly OperatorSession[]): Promise<void> {
  for (const s of sessions) await s.context.close().catch(() => {});
  await browser?.close();
}

export interface OperatorSession {
  readonly context: BrowserContext;
  readonly page: Page;
  /** The console's page `name` has rendered its data (main[data-page=name][data-ready]). */
  ready(name: string, timeoutMs?: number): Promise<void>;
  goto(hash: string, name: string): Promise<void>;
  screenshot(name: string): Promise<string>;
}

/** A new context; the operator signs in at the provider's form and lands on the console. */
export async function signIn(browser: Browser, baseUrl: string, operator: string, options: { hash?: string; page?: string } = {}): Promise<OperatorSession> {
  const context = await browser.newContext({ locale: 'en-GB', timezoneId: 'Asia/Bangkok', viewport: { width: 1360, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${baseUrl}/console/${options.hash ?? ''}`);
  await page.waitForURL(/\/oidc\/interaction\//);
  await page.selectOption('[data-testid=login-operator]', operator);
  await page.fill('[data-testid=login-password]', devOperatorPassword);
  await page.click('[data-testid=login-submit]');
  await page.waitForURL(new RegExp(`^${baseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/console/`));
  const session: OperatorSession = {
    context, page,
    async ready(name, timeoutMs = 15_000) {
      try {
        await page.waitForSelector(`main[data-page="${name}"][data-ready="1"]`, { timeout: timeoutMs });
      } catch (error) {
        throw new Error(`page ${name} did not render (${page.url()}): ${problems.join('; ') || (error as Error).message}`);
      }
    },
    async goto(hash, name) {
      await page.evaluate((h) => { location.hash = h; }, hash);
      await session.ready(name);
    },
    async screenshot(name) {
      mkdirSync(screenshotDir, { recursive: true });
      const path = join(screenshotDir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
  };
  await session.ready(options.page ?? 'queue');
  return session;
}

/**
 * Signs operators in and keeps their sessions, for closeSessions at the end of a spec: `browser` and
 * `url` are read at each sign-in (a spec launches Chromium and starts its server in test.before).
 */
export function operators(browser: () => Browser, url: () => string): { signIn(sub: string, hash: string, page: string): Promise<OperatorSession>; close(): Promise<void> } {
  const sessions: OperatorSession[] = [];
  return {
    async signIn(sub, hash, page) {
      const session = await signIn(browser(), url(), sub, { hash, page });
      sessions.push(session);
      return session;
    },
    close: () => closeSessions(browser(), sessions),
  };
}

/** Answers the step-up popup the next click opens: the operator types the password again. */
export async function answerStepUp(session: OperatorSession, click: () => Promise<void>): Promise<void> {
  const [popup] = await Promise.all([session.context.waitForEvent('page'), click()]);
  await popup.waitForURL(/\/oidc\/interaction\//);
  await popup.fill('[data-testid=login-password]', devOperatorPassword);
  // The close is awaited from before the click: a fast sign-in closes the popup before a
  // waiter registered after the click would see it, and that waiter would wait forever (the
  // harness reported "did not close: closed"). The provider's sign-in, its redirect, the code
  // exchange and the close: on a 2-core machine that Chromium, the provider, the server and
  // the rest of the suite share, this took longer than 15 s under load (seen in full-suite
  // runs); a popup that never closes still fails.
  const closed = popup.waitForEvent('close', { timeout: 60_000 });
  closed.catch(() => undefined); // awaited below; a click that fails first must not leave it unhandled
  try {
    await popup.click('[data-testid=login-submit]', { noWaitAfter: true });
    await closed;
  } catch (error) {
    if (popup.isClosed()) return; // the click raced the close: closed is what was asked
    // Where the popup stopped, so a failure says which step of the sign-in it never left.
    const where = `${popup.url()} showing ${JSON.stringify((await popup.textContent('body').catch(() => null))?.trim().slice(0, 300) ?? null)}`;
    throw new Error(`the step-up popup did not close: ${where} (${(error as Error).message.split('\n')[0]})`);
  }
}

/**
 * A spec's slip scene (a real server with its merchants and payers, slip-harness.ts) and
 * Chromium, started before the suite's tests and stopped after them, with its operators'
 * sessions: `scene` reads the scene the suite started.
 */
export function consoleOnSlipScene(suite: Test): { readonly scene: SlipScene; readonly signedIn: ReturnType<typeof operators> } {
  let scene: SlipScene | undefined;
  let browser: Browser | undefined;
  const signedIn = operators(() => browser!, () => scene!.s.url);
  suite.before(async () => {
    scene = await slipScene();
    browser = await launchChromium();
  });
  suite.after(async () => {
    await signedIn.close();
    await scene?.s.stop();
  });
  return { get scene() { return scene!; }, signedIn };
}
