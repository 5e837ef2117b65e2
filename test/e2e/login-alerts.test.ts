// Owners are told in the farm app when someone keeps failing to sign in to one of the farm's
// accounts; staff are not shown it. Real Chromium against a real Furrow app; screenshots at phone
// and desktop width, in English and Vietnamese, under test-output/login-alerts/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { request, startTestApp, type TestApp } from '../support/app.js';
import {
  accessibilityViolations,
  ensureWebBuilt,
  launchBrowser,
  openScreen,
  type ScreenPage,
  TEST_OUTPUT_DIR,
} from '../support/browser.js';
import { TestDatabase } from '../support/databases.js';
import { makeTenant, makeUser, type TestTenant } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'login-alerts');
const PHONE = { width: 390, height: 844 };

async function signIn(page: Page, tenant: string, user: { username: string; password: string }, vi = false) {
  await page.goto('/manage/');
  await page.getByLabel(vi ? 'Mã doanh nghiệp' : 'Tenant code').fill(tenant);
  await page.getByLabel(vi ? 'Tên đăng nhập' : 'Username').fill(user.username);
  await page.getByLabel(vi ? 'Mật khẩu' : 'Password').fill(user.password);
  await page.getByRole('button', { name: vi ? 'Đăng nhập' : 'Sign in' }).click();
}

describe('Farm app: accounts under attack [sqlite, chromium]', () => {
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
    const problems = open.flatMap((s) => s.problems);
    await Promise.all(open.splice(0).map((s) => s.close()));
    assert.deepEqual(problems, [], 'no console errors, uncaught exceptions or failed requests');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await database.drop();
  });

  it('shows owners nothing while sign-ins are normal, then who is being guessed', async () => {
    const { page, screenshot } = await screen();
    await signIn(page, farm.code, farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await page.locator('.login-alerts').count(), 0);

    for (let i = 0; i < 10; i++) {
      const res = await request(t.url, 'POST', '/api/auth/login', {
        json: { tenantcode: farm.code, username: 'admin', password: `guess-${i}` },
      });
      assert.equal(res.body.meta.status_code, 1);
    }
    await page.reload();
    const notice = page.getByRole('region', { name: 'Someone may be trying to guess a password' });
    await notice.waitFor();
    assert.match(
      await notice.innerText(),
      /"admin": 10 failed sign-ins in the last 24 hours, from 1 address,/,
    );
    assert.match(await notice.innerText(), /your own sign-in keeps working/);
    assert.deepEqual(await accessibilityViolations(page), []);
    await screenshot('01-owner-desktop-en');

    const phone = await screen({ viewport: PHONE });
    await signIn(phone.page, farm.code, farm.owner);
    await phone.page.getByRole('region', { name: 'Someone may be trying to guess a password' }).waitFor();
    await phone.screenshot('02-owner-phone-en');

    const vi = await screen({ viewport: PHONE, locale: 'vi-VN' });
    await signIn(vi.page, farm.code, farm.owner, true);
    const viNotice = vi.page.getByRole('region', { name: 'Có thể ai đó đang đoán mật khẩu' });
    await viNotice.waitFor();
    assert.match(await viNotice.innerText(), /"admin": 10 lần đăng nhập sai trong 24 giờ qua/);
    assert.deepEqual(await accessibilityViolations(vi.page), []);
    await vi.screenshot('03-owner-phone-vi');
  });

  it('does not show staff the notice', async () => {
    const { page } = await screen({ viewport: PHONE });
    await signIn(page, farm.code, staff);
    await page.getByRole('heading', { name: 'Only owners can manage webhooks' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await page.locator('.login-alerts').count(), 0);
  });
});
