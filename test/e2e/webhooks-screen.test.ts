// The Webhooks screen in a real headless Chromium against a real Furrow app serving the built
// web/dist. Every test fails on a console error or an uncaught exception and saves screenshots
// under test-output/webhooks-screen/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { request, startTestApp, type TestApp } from '../support/app.js';
import {
  ensureWebBuilt,
  launchBrowser,
  openScreen,
  type ScreenPage,
  TEST_OUTPUT_DIR,
} from '../support/browser.js';
import { TestDatabase } from '../support/databases.js';
import { makeTenant, makeUser, type TestTenant } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'webhooks-screen');
const PHONE = { width: 390, height: 844 };

async function signIn(page: Page, tenant: string, user: { username: string; password: string }) {
  await page.getByLabel('Tenant code').fill(tenant);
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('Webhooks screen: signing in and out [sqlite, chromium]', () => {
  const database = new TestDatabase('sqlite');
  let t: TestApp;
  let browser: Browser;
  let farm: TestTenant;
  let staff: { username: string; password: string };
  const open: ScreenPage[] = [];

  async function screen(options: { viewport?: { width: number; height: number }; locale?: string } = {}) {
    const s = await openScreen(browser, t.url, { outputDir: OUTPUT, ...options });
    open.push(s);
    return s;
  }

  before(async () => {
    ensureWebBuilt();
    await database.create();
    t = await startTestApp(database.url);
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

  it('signs in with the keyboard alone, after a wrong password is refused with the reason', async () => {
    const { page, screenshot } = await screen();
    await page.goto('/');
    await page.waitForURL('**/manage/');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();

    await signIn(page, farm.code, { username: 'owner', password: 'wrong-password' });
    await page.getByRole('alert').filter({ hasText: 'The account or password is incorrect' }).waitFor();
    await screenshot('01-sign-in-refused');

    // Keyboard only: Tab from field to field, Enter to submit.
    await page.getByLabel('Password').fill('');
    await page.getByLabel('Tenant code').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.id'), 'signin-username');
    await page.keyboard.press('Tab');
    await page.keyboard.type(farm.owner.password);
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText(`Signed in as Ana Tran (owner), Farm ${farm.code}`).waitFor();
    const stored = await page.evaluate('JSON.parse(sessionStorage.getItem("furrow.session")).token');
    assert.equal(typeof stored, 'string', 'the token is kept in sessionStorage');
    await screenshot('02-signed-in');
  });

  it('tells a staff member that only owners manage webhooks', async () => {
    const { page, screenshot } = await screen();
    await page.goto('/manage/webhooks');
    await signIn(page, farm.code, staff);
    await page.getByRole('heading', { name: 'Only owners can manage webhooks' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add endpoint' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Add endpoint' }).count(), 0);
    await screenshot('03-staff');
  });

  it('goes back to sign-in with a message when the token expires', async () => {
    const { page, screenshot } = await screen();
    await page.goto('/manage/');
    await signIn(page, farm.code, farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();

    t.clock.advance(36_001 * 1000); // past TOKEN_TTL_SECONDS
    try {
      await page.reload();
      await page.getByText('Your session has expired. Please sign in again.').waitFor();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      assert.equal(await page.evaluate('sessionStorage.getItem("furrow.session")'), null);
      await screenshot('04-expired');
    } finally {
      t.clock.advance(-36_001 * 1000);
    }
  });

  it('signs out: the token is revoked and the screen says so', async () => {
    const { page, screenshot } = await screen();
    await page.goto('/manage/');
    await signIn(page, farm.code, farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const token = (await page.evaluate(
      'JSON.parse(sessionStorage.getItem("furrow.session")).token',
    )) as string;

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    assert.equal(await page.evaluate('sessionStorage.getItem("furrow.session")'), null);
    const me = await request(t.url, 'GET', '/api/auth/me', { token });
    assert.equal(me.status, 401, 'the signed-out token no longer works');
    await screenshot('05-signed-out');
  });

  it('speaks Vietnamese, server messages included, and fits a phone screen', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/');
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('heading', { level: 1, name: 'Đăng nhập' }).waitFor();
    assert.equal(await page.evaluate('document.documentElement.lang'), 'vi');

    await page.getByLabel('Mã doanh nghiệp').fill(farm.code);
    await page.getByLabel('Tên đăng nhập').fill('owner');
    await page.getByLabel('Mật khẩu').fill('wrong-password');
    await page.getByRole('button', { name: 'Đăng nhập' }).click();
    await page.getByRole('alert').filter({ hasText: 'Tài khoản hoặc mật khẩu không đúng' }).waitFor();

    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(Number(overflow) <= 0, `no sideways scrolling at phone width (${overflow}px too wide)`);
    await screenshot('06-phone-vietnamese');
  });
});
