// Owners are told in the farm app when someone keeps failing to sign in to one of the farm's
// accounts; staff are not shown it. Real Chromium against a real Furrow app; screenshots at phone
// and desktop width, in English and Vietnamese, under test-output/login-alerts/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { request } from '../support/app.js';
import { accessibilityViolations, TEST_OUTPUT_DIR, useScreenSuite } from '../support/browser.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'login-alerts');
const PHONE = { width: 390, height: 844 };

async function signIn(page: Page, tenant: string, user: { username: string; password: string }, vi = false) {
  await page.goto('/manage/');
  await page.getByLabel(vi ? 'Mã doanh nghiệp' : 'Farm code').fill(tenant);
  await page.getByLabel(vi ? 'Tên đăng nhập' : 'Username').fill(user.username);
  await page.getByLabel(vi ? 'Mật khẩu' : 'Password').fill(user.password);
  await page.getByRole('button', { name: vi ? 'Đăng nhập' : 'Sign in' }).click();
}

describe('Farm app: accounts under attack [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;

  it('shows owners nothing while sign-ins are normal, then who is being guessed', async () => {
    const { page, screenshot } = await screen();
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await page.locator('.login-alerts').count(), 0);

    for (let i = 0; i < 10; i++) {
      const res = await request(suite.t.url, 'POST', '/api/auth/login', {
        json: { tenantcode: suite.farm.code, username: 'admin', password: `guess-${i}` },
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
    await signIn(phone.page, suite.farm.code, suite.farm.owner);
    await phone.page.getByRole('region', { name: 'Someone may be trying to guess a password' }).waitFor();
    await phone.screenshot('02-owner-phone-en');

    const vi = await screen({ viewport: PHONE, locale: 'vi-VN' });
    await signIn(vi.page, suite.farm.code, suite.farm.owner, true);
    const viNotice = vi.page.getByRole('region', { name: 'Có thể ai đó đang đoán mật khẩu' });
    await viNotice.waitFor();
    assert.match(await viNotice.innerText(), /"admin": 10 lần đăng nhập sai trong 24 giờ qua/);
    assert.deepEqual(await accessibilityViolations(vi.page), []);
    await vi.screenshot('03-owner-phone-vi');
  });

  it('does not show staff the notice', async () => {
    const { page } = await screen({ viewport: PHONE });
    await signIn(page, suite.farm.code, suite.staff);
    await page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await page.locator('.login-alerts').count(), 0);
  });
});
