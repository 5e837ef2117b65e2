// The farm app's shell in a real headless Chromium against a real Furrow: navigation on desktop
// (side list) and phone (bottom bar and "More"), staff never offered an owner's section, the
// language switch, tab titles and the focus after a move. Every state is checked with axe and
// every test fails on a console error. Screenshots under test-output/app-shell/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  assertAccessible,
  sidewaysOverflow,
  signIn,
  TEST_OUTPUT_DIR,
  useScreenSuite,
  waitForFocus,
} from '../support/browser.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'app-shell');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

const ALL_EN = [
  'Today',
  'Fields',
  'Crops',
  'Seasons',
  'Diary',
  'Sensors',
  'Harvests',
  'Webhooks',
  'People',
  'Account',
];

/** Every section the navigation offers (on phones some sit behind "More"). */
async function navLinks(page: Page): Promise<string[]> {
  return (await page.locator('nav .nav-list a').allTextContents()).map((s) => s.trim());
}

describe('Farm app shell [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;

  it('desktop: every section in the side navigation; a move sets the title and focuses the heading', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(await page.title(), 'Sign in · Furrow');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
    await waitForFocus(page, 'h1', 'Today'); // signing in is a move too
    assert.equal(await page.title(), 'Today · Furrow');
    assert.deepEqual(await navLinks(page), ALL_EN);
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.getByRole('link', { name: 'Today' }).getAttribute('aria-current'), 'page');
    assert.equal(await nav.getByRole('button', { name: 'More' }).isVisible(), false, 'no "More" on desktop');
    // A new farm has nothing waiting: Today says so.
    await page.getByRole('heading', { level: 2, name: 'All is well' }).waitFor();
    await screenshot('01-today-desktop-en');
    await assertAccessible(page);

    await nav.getByRole('link', { name: 'Fields' }).click();
    await page.getByRole('heading', { level: 1, name: 'Fields' }).waitFor();
    await waitForFocus(page, 'h1', 'Fields');
    assert.equal(await page.title(), 'Fields · Furrow');
    assert.equal(await nav.getByRole('link', { name: 'Fields' }).getAttribute('aria-current'), 'page');
    assert.equal(await nav.getByRole('link', { name: 'Today' }).getAttribute('aria-current'), null);

    // Every section has its route; back returns with the focus on the heading.
    for (const [path, name] of [
      ['crops', 'Crops'],
      ['seasons', 'Seasons'],
      ['diary', 'Diary'],
      ['sensors', 'Sensors'],
      ['harvests', 'Harvests'],
      ['people', 'People'],
    ] as const) {
      await page.goto(`/manage/${path}`);
      await page.getByRole('heading', { level: 1, name }).waitFor();
    }
    await page.goto('/manage/account');
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Your details' }).waitFor();
    await nav.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
    await waitForFocus(page, 'h1', 'Account');
    assert.ok((await sidewaysOverflow(page)) <= 0);
  });

  it('phone: a bottom bar with the main sections and "More" for the rest, in Vietnamese', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/');
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('heading', { level: 1, name: 'Đăng nhập' }).waitFor();
    assert.equal(await page.evaluate('document.documentElement.lang'), 'vi');
    assert.equal(await page.title(), 'Đăng nhập · Furrow');
    await screenshot('02-sign-in-phone-vi');
    await assertAccessible(page);

    await signIn(page, suite.farm.code, suite.farm.owner, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Hôm nay' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Điều hướng chính' });
    const visible = [];
    for (const link of await nav.getByRole('link').all()) {
      if (await link.isVisible()) visible.push((await link.innerText()).trim());
    }
    assert.deepEqual(visible, ['Hôm nay', 'Nhật ký', 'Cảm biến', 'Thu hoạch'], 'the bottom bar');
    const more = nav.getByRole('button', { name: 'Mục khác' });
    assert.equal(await more.getAttribute('aria-expanded'), 'false');
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await screenshot('03-today-phone-vi', { fullPage: false });
    await assertAccessible(page);

    await more.click();
    const menu = page.locator('#nav-more-menu');
    await menu.getByRole('link', { name: 'Webhook' }).waitFor();
    assert.deepEqual(
      (await menu.getByRole('link').allInnerTexts()).map((s) => s.trim()),
      ['Khu đất', 'Cây trồng', 'Mùa vụ', 'Webhook', 'Nhân sự', 'Tài khoản'],
    );
    await screenshot('04-more-phone-vi', { fullPage: false });
    await assertAccessible(page);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    await waitForFocus(page, 'button', 'Mục khác');

    await more.click();
    await menu.getByRole('link', { name: 'Webhook' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    await waitForFocus(page, 'h1', 'Webhook');
    await menu.waitFor({ state: 'hidden' });
    assert.equal(await page.title(), 'Webhook · Furrow');
    await page.getByText('Chưa có webhook nào').waitFor();
    await screenshot('05-webhooks-phone-vi', { fullPage: false });
    await assertAccessible(page);

    // The language is kept for the next visit.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    assert.equal(await page.evaluate('localStorage.getItem("furrow.language")'), 'vi');

    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    assert.equal(await page.title(), 'Webhooks · Furrow');
  });

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    it(`staff (${size}) are never offered an owner's section, and a link to one asks for nothing`, async () => {
      const { page, screenshot } = await screen({ viewport });
      const asked: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/api/webhooks')) asked.push(request.url());
      });
      await page.goto('/manage/');
      await signIn(page, suite.farm.code, suite.staff);
      await page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
      const offered = await navLinks(page);
      assert.deepEqual(offered, [
        'Today',
        'Fields',
        'Crops',
        'Seasons',
        'Diary',
        'Sensors',
        'Harvests',
        'Account',
      ]);
      await screenshot(`06-staff-${size}`, { fullPage: false });
      await assertAccessible(page);

      await page.goto('/manage/webhooks');
      await page.getByRole('heading', { name: 'Only owners can use Webhooks' }).waitFor();
      await page.goto('/manage/people');
      await page.getByRole('heading', { name: 'Only owners can use People' }).waitFor();
      assert.deepEqual(asked, [], 'no request to the owner-only API');
      await screenshot(`07-staff-owner-only-${size}`, { fullPage: false });
      await assertAccessible(page);
    });
  }

  it('signs out with the focus on the sign-in heading and the reason said', async () => {
    const { page } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/diary');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Diary' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('status').filter({ hasText: 'You have signed out.' }).waitFor();
    await waitForFocus(page, 'h1', 'Sign in');
    assert.equal(await page.title(), 'Sign in · Furrow');
    await assertAccessible(page);
  });
});
