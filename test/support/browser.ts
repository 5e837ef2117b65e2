// A real headless Chromium for the farm app's tests: Debian's /usr/bin/chromium driven by
// playwright-core (which downloads nothing). Every page records console errors and uncaught
// exceptions so a test can fail on them, and saves screenshots under test-output/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, afterEach, before } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from './app.js';
import { TestDatabase } from './databases.js';
import { makeTenant, makeUser, type TestTenant } from './factories.js';
import { REPO_ROOT } from './processes.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const WEB_DIST_DIR = join(REPO_ROOT, 'web', 'dist');
export const TEST_OUTPUT_DIR = join(REPO_ROOT, 'test-output');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

/** The newest modification time of the screen's sources (web/ without dist/). */
function newestWebSource(dir = join(REPO_ROOT, 'web')): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestWebSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The tests serve the real build; build it when it is missing (npm install normally has) or older
 * than a source of the screen, so a test never checks a stale screen.
 */
export function ensureWebBuilt(): void {
  const index = join(WEB_DIST_DIR, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestWebSource()) return;
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-web.mjs')], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  if (result.status !== 0 || !existsSync(join(WEB_DIST_DIR, 'index.html'))) {
    throw new Error(
      'web/dist is missing or stale and "npm run build:web" failed: the screen cannot be tested',
    );
  }
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}. Install Debian's package ("apt-get install chromium") or set CHROMIUM_PATH.`,
    );
  }
  // playwright-core gives the browser a fresh temporary profile (--user-data-dir) and removes it.
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
}

/**
 * HTTP errors the screen asks for by design (a wrong form is a 422, an expired token a 401).
 * Chromium logs each as "Failed to load resource"; anything else on the console is a failure.
 */
const EXPECTED_HTTP_ERRORS =
  /^Failed to load resource: the server responded with a status of (401|403|409|422) /;

export interface ScreenPage {
  context: BrowserContext;
  page: Page;
  /** Console errors, uncaught exceptions and failed requests seen so far. */
  problems: string[];
  /** Saves <outputDir>/<name>.png: the whole page, or only what the window shows. */
  screenshot(name: string, options?: { fullPage?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function openScreen(
  browser: Browser,
  baseURL: string,
  options: {
    outputDir: string;
    viewport?: { width: number; height: number };
    locale?: string;
    timezoneId?: string;
  },
): Promise<ScreenPage> {
  const context = await browser.newContext({
    baseURL,
    viewport: options.viewport ?? { width: 1280, height: 900 },
    locale: options.locale ?? 'en-GB',
    timezoneId: options.timezoneId ?? 'Asia/Ho_Chi_Minh',
    deviceScaleFactor: 1,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    const text = message.text();
    if (message.type() === 'error' && EXPECTED_HTTP_ERRORS.test(text)) return;
    if (message.type() === 'warning' && !/Content.Security.Policy|React/i.test(text)) return;
    problems.push(`console ${message.type()}: ${text} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.stack ?? error.message}`));
  page.on('requestfailed', (request) => {
    // A request cut short by a navigation is normal; a refused one is not.
    const failure = request.failure()?.errorText ?? '';
    if (!/ERR_ABORTED/.test(failure)) problems.push(`request failed: ${request.url()} ${failure}`);
  });
  mkdirSync(options.outputDir, { recursive: true });
  return {
    context,
    page,
    problems,
    async screenshot(name: string, shot: { fullPage?: boolean } = {}) {
      const path = join(options.outputDir, `${name}.png`);
      await page.screenshot({ path, fullPage: shot.fullPage ?? true });
      return path;
    },
    async close() {
      await context.close();
    },
  };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core (WCAG 2 A/AA rules) on the page as it is now and answers one line per
 * violation. It is evaluated through the DevTools protocol, so the page's CSP stays as served.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) {
    await page.evaluate(`${AXE_SOURCE}\nundefined`);
  }
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations)`,
  )) as AxeViolation[];
  return violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}

/** What useScreenSuite prepares: a Furrow app with a farm, its owner and a staff member, and a browser. */
export interface ScreenSuite {
  readonly t: TestApp;
  readonly farm: TestTenant;
  readonly staff: { username: string; password: string };
  /** A new page (its own context); every test fails on a console error of its pages. */
  screen(options?: { viewport?: { width: number; height: number }; locale?: string }): Promise<ScreenPage>;
}

/**
 * Registers the hooks of a browser suite on SQLite (call it inside `describe`): the app (with `env`
 * added to its configuration), a farm with an owner and a staff member, Chromium, and pages checked
 * for console errors after each test.
 */
export function useScreenSuite(
  outputDir: string,
  options: { env?: Record<string, string> } = {},
): ScreenSuite {
  const database = new TestDatabase('sqlite');
  let t: TestApp | undefined;
  let browser: Browser | undefined;
  let farm: TestTenant | undefined;
  let staff: { username: string; password: string } | undefined;
  const open: ScreenPage[] = [];
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the screen suite is not set up yet');
    return value;
  };

  before(async () => {
    ensureWebBuilt();
    await database.create();
    t = await startTestApp(database.url, { env: options.env });
    farm = await makeTenant(t.database.db);
    staff = await makeUser(t.database.db, farm, 'staff');
    browser = await launchBrowser();
  });
  afterEach(async () => {
    // Every page of the test must have stayed free of console errors.
    const problems = open.flatMap((s) => s.problems);
    await Promise.all(open.splice(0).map((s) => s.close()));
    assert.deepEqual(problems, [], 'no console errors, uncaught exceptions or failed requests');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await database.drop();
  });

  return {
    get t() {
      return ready(t);
    },
    get farm() {
      return ready(farm);
    },
    get staff() {
      return ready(staff);
    },
    async screen(options = {}) {
      const s = await openScreen(ready(browser), ready(t).url, { outputDir, ...options });
      open.push(s);
      return s;
    },
  };
}

const SIGN_IN_LABELS = {
  en: { tenant: 'Farm code', username: 'Username', password: 'Password', submit: 'Sign in' },
  vi: { tenant: 'Mã doanh nghiệp', username: 'Tên đăng nhập', password: 'Mật khẩu', submit: 'Đăng nhập' },
};

/** Fills the sign-in form shown on the current page and submits it. */
export async function signIn(
  page: Page,
  tenant: string,
  user: { username: string; password: string },
  language: 'en' | 'vi' = 'en',
): Promise<void> {
  const labels = SIGN_IN_LABELS[language];
  await page.getByLabel(labels.tenant).fill(tenant);
  await page.getByLabel(labels.username).fill(user.username);
  await page.getByLabel(labels.password).fill(user.password);
  await page.getByRole('button', { name: labels.submit }).click();
}

/** What has the keyboard focus: its tag, id and text. */
export async function focused(page: Page): Promise<{ tag: string; id: string; text: string }> {
  return (await page.evaluate(
    '({ tag: document.activeElement.tagName, id: document.activeElement.id, text: document.activeElement.textContent.trim() })',
  )) as { tag: string; id: string; text: string };
}

/**
 * Polls `predicate` in the page every 100 ms until it answers true, or fails after `timeoutMs`.
 * Each poll is one page.evaluate (a DevTools call, which the page's CSP allows), never
 * page.waitForFunction, whose polling evaluates the predicate with eval inside the page and so
 * trips the app's CSP (script-src 'self') as an uncaught EvalError. A poll cut short by a
 * navigation (the document it ran in went away) is simply tried again.
 */
export async function waitInPage<A>(
  page: Page,
  predicate: (arg: A) => boolean,
  arg: A,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await page.evaluate(predicate as (arg: any) => boolean, arg)) return;
    } catch (err) {
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`waited ${timeoutMs} ms for ${what}${last ? ` (${String(last)})` : ''}`);
}

/**
 * Waits until the focus is on a `tag` element whose text is (or matches) `text`; focus moves after a
 * render, which a loaded machine may delay by seconds.
 */
export async function waitForFocus(page: Page, tag: string, text: string | RegExp): Promise<void> {
  const pattern = typeof text === 'string' ? `^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$` : text.source;
  try {
    await waitInPage(
      page,
      ({ tag, pattern }) => {
        const e = (globalThis as any).document.activeElement;
        return !!e && e.tagName === tag && new RegExp(pattern).test((e.textContent || '').trim());
      },
      { tag: tag.toUpperCase(), pattern },
      `the focus on ${tag} "${text}"`,
    );
  } catch {
    assert.fail(`focus on ${tag} "${text}", found ${JSON.stringify(await focused(page))}`);
  }
}

/** Waits until the element with this id has the focus. */
export async function waitForFocusedId(page: Page, id: string, timeoutMs = 30_000): Promise<void> {
  await waitInPage(
    page,
    (wanted) => (globalThis as any).document.activeElement?.id === wanted,
    id,
    `the focus on #${id}`,
    timeoutMs,
  );
}

/** Fails with the page's WCAG 2.1 A/AA violations (axe), if it has any; `state` names the screen. */
export async function assertAccessible(page: Page, state?: string): Promise<void> {
  assert.deepEqual(await accessibilityViolations(page), [], state === undefined ? 'axe' : `axe: ${state}`);
}

/** Fails when the page scrolls sideways (at phone width), naming the elements that stick out. */
export async function assertFits(page: Page, state?: string): Promise<void> {
  const overflow = await sidewaysOverflow(page);
  const widest =
    overflow > 0
      ? await page.evaluate(
          `[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth).slice(-3).map((e) => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 40)).join(' | ')`,
        )
      : '';
  assert.ok(
    overflow <= 0,
    `no sideways scrolling${state === undefined ? '' : `: ${state}`} (${overflow}px too wide: ${widest})`,
  );
}

/** Sideways overflow of the page in pixels (0 or less: it fits the window). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
}
