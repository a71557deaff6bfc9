// The browser tests' shared parts: Debian's chromium driven by playwright-core (no browser download),
// a fresh browser context per test (its own cookies, storage and permissions) in one chromium per
// process, screenshots under test-artifacts/web/, a watch on console errors, CSP violations and failed
// requests, and signing in through the dashboard's form.
import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PACKAGE_ROOT } from '../../src/package.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(PACKAGE_ROOT, 'test-artifacts', 'web');

/** false where chromium is installed; otherwise why the browser tests are skipped (printed once). */
export const skipBrowser: string | false = fs.existsSync(CHROMIUM)
  ? false
  : `chromium not found at ${CHROMIUM} (apt-get install chromium): the browser test is skipped`;
if (skipBrowser) console.log(`# ${skipBrowser}`);

/**
 * The process's chromium, launched by the first test that asks and closed when the process is done.
 * A launch costs about 0.4 s of CPU more than a context (measured: five launches with a fresh profile
 * each 3.4-4.1 s of CPU, one launch and five contexts 2.0-2.2 s), and a group's process runs up to eight
 * browser test files, some with three browsers each. A context shares nothing a test can see with
 * another: cookies, storage, permissions and the cache are its own, as in a fresh profile.
 */
let shared: Promise<Browser> | null = null;
function sharedBrowser(): Promise<Browser> {
  if (!shared) {
    const launching = chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    shared = launching;
    // One that crashed is launched again by the next test.
    const forget = () => {
      if (shared === launching) shared = null;
    };
    launching.then((b) => b.on('disconnected', forget), forget);
    // Its pipes keep the process alive, so it closes when tap's root ends: a root with a teardown ends
    // once it is idle (tap's autoend), after the last file of a group's process too.
    const root = (globalThis as Record<symbol, unknown>)[Symbol.for('TAP private constructor')] as
      { teardown(fn: () => Promise<void>): void } | undefined;
    root?.teardown(() => launching.then((b) => b.close()).catch(() => undefined));
  }
  return shared;
}

/** A fresh browser context (closed at the end of the test). */
export async function browser(t: Test): Promise<BrowserContext> {
  if (!fs.existsSync(path.join(PACKAGE_ROOT, 'dist/web/index.html')))
    throw new Error('dist/web is not built: run `npm run build` (or node scripts/web.mjs) first');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const ctx = await (await sharedBrowser()).newContext({ viewport: { width: 1280, height: 900 } });
  t.teardown(() => ctx.close());
  return ctx;
}

/** The context's first page. */
export async function firstPage(ctx: BrowserContext): Promise<Page> {
  return ctx.pages()[0] ?? (await ctx.newPage());
}

/** A full-page screenshot test-artifacts/web/<name>.png (docs/web/ copies them). */
export async function shot(t: Test, p: Page, name: string): Promise<void> {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await p.screenshot({ path: file, fullPage: true });
  t.ok(fs.statSync(file).size > 1000, `screenshot ${name}.png`);
}

/** Collects console errors, page errors and failed requests (a test ends with `t.same(problems, [])`). */
export function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    // The live feed's stream is cancelled by the page itself when it signs out or leaves: not a failure.
    // So is the sign-in page's passkey request (its conditional UI) when the page signs in otherwise and moves on.
    const p = new URL(r.url()).pathname;
    if ((p === '/ui/live' || p === '/ui/session/passkey/options') && r.failure()?.errorText === 'net::ERR_ABORTED')
      return;
    problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  return problems;
}

/** Switches the sign-in form from e-mail and password to an API token. */
export async function useToken(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Use an API token instead' }).click();
}

/** Signs in with a token in the form at `url`/ and waits for the Home and its counts. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url + '/');
  await useToken(page);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('home-summary').waitFor();
}

/** An element as the page callbacks below read it. */
interface PageElement {
  tagName: string;
  className: string;
  textContent: string | null;
  getBoundingClientRect(): { right: number };
  closest(selector: string): PageElement | null;
}

/**
 * What the callbacks given to page.evaluate() read of the page: they run in the browser, and this
 * TypeScript program (Node's) has no DOM types, so a callback types `globalThis` with this.
 */
export interface PageGlobals {
  document: {
    cookie: string;
    body: PageElement;
    documentElement: { scrollWidth: number };
    activeElement: PageElement | null;
    querySelectorAll(selector: string): Iterable<PageElement>;
  };
  getComputedStyle(e: PageElement): { backgroundColor: string };
  /** Set by a test to tell whether the page was reloaded since. */
  marker?: number;
}
