// The farm app's People section (/manage/people, owners only) in a real headless Chromium against
// a real Furrow: the owner adds a staff member (the API's refusals next to their field), the new
// person signs in on another device, the owner changes their role, sets them a new password (the
// old one stops working) and removes them after a confirmation; the owner's own page says they
// cannot remove themselves. Staff who follow a link get the owner-only notice and nothing is asked
// of the API. Every state is checked with axe; screenshots under test-output/people/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { client } from '../support/app.js';
import {
  assertAccessible,
  assertFits,
  signIn,
  TEST_OUTPUT_DIR,
  useScreenSuite,
  waitForFocus,
  waitForFocusedId,
} from '../support/browser.js';
import { loginToken } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'people');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

describe('People section [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;
  const minh = { username: 'minh', password: 'rice-field-42' };

  it('the owner adds a person, who signs in; changes their role and password; removes them after a confirmation', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    const owner = client(suite.t.url, await loginToken(suite.t.url, suite.farm.code, suite.farm.owner));
    await page.goto('/manage/people');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'People' }).waitFor();
    const ownerRow = page.getByRole('row', { name: /Ana Tran \(you\)/ });
    await ownerRow.getByText('Owner', { exact: true }).waitFor();
    await page
      .getByRole('row', { name: new RegExp(suite.staff.username) })
      .getByText('Staff', { exact: true })
      .waitFor();
    await screenshot('01-list-desktop-en');
    await assertAccessible(page);

    await page.getByRole('link', { name: 'Add a person' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Add a person' }).waitFor();
    await waitForFocus(page, 'h1', 'Add a person');
    await page.getByLabel('Username').fill('owner');
    await page.getByLabel('Name (optional)').fill('Minh Le');
    await page.getByLabel('First password').fill('short');
    await page.getByRole('button', { name: 'Add person' }).click();
    await page.locator('#person-password-error').filter({ hasText: 'Use at least 8 characters.' }).waitFor();
    await waitForFocusedId(page, 'person-password');
    assert.equal(await page.getByLabel('First password').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('First password').fill(minh.password);
    await page.getByRole('button', { name: 'Add person' }).click();
    await page
      .locator('#person-username-error')
      .filter({ hasText: 'This is already used. Choose another.' })
      .waitFor();
    await waitForFocusedId(page, 'person-username');
    assert.equal(await page.getByLabel('Name (optional)').inputValue(), 'Minh Le', 'what was typed stays');
    assert.equal(await page.locator('#person-password-error').count(), 0);
    await screenshot('02-username-taken-desktop-en');
    await assertAccessible(page);

    await page.getByLabel('Username').fill(minh.username);
    assert.equal(await page.getByRole('radio', { name: /Staff/ }).isChecked(), true, 'staff unless chosen');
    await page.getByRole('button', { name: 'Add person' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Minh Le was added and can sign in now with the username minh.' })
      .waitFor();
    await waitForFocus(page, 'h1', 'People');
    const minhRow = page.getByRole('row', { name: /Minh Le/ });
    await minhRow.getByText('Staff', { exact: true }).waitFor();

    // Minh signs in on a phone.
    const phone = await screen({ viewport: PHONE });
    await phone.page.goto('/manage/');
    await signIn(phone.page, suite.farm.code, minh);
    await phone.page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();

    // A role.
    await minhRow.getByRole('link', { name: 'Minh Le' }).click();
    await page.getByRole('heading', { level: 1, name: 'Minh Le' }).waitFor();
    await waitForFocus(page, 'h1', 'Minh Le');
    await screenshot('03-person-desktop-en');
    await assertAccessible(page);
    await page.getByRole('radio', { name: /Owner/ }).check();
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByRole('status').filter({ hasText: 'Minh Le is now an owner.' }).waitFor();
    await page.locator('.person-facts').getByText('Owner', { exact: true }).waitFor();
    await waitForFocus(page, 'button', 'Save role');
    const minhId = (await owner.get('/api/users?pageLimit=100')).body.find(
      (u: { username: string }) => u.username === 'minh',
    ).id;
    assert.equal((await owner.get(`/api/users/${minhId}`)).body[0].role, 'owner');

    // A new password: too short first, then one that works; the old one and Minh's session end.
    await page.getByLabel('New password', { exact: true }).fill('1234');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page
      .locator('#person-new-password-error')
      .filter({ hasText: 'Use at least 8 characters.' })
      .waitFor();
    await waitForFocusedId(page, 'person-new-password');
    await assertAccessible(page);
    await page.getByLabel('New password', { exact: true }).fill('new-harvest-77');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'New password set for Minh Le. They sign in with it from now on.' })
      .waitFor();
    assert.equal(await page.getByLabel('New password', { exact: true }).inputValue(), '');
    assert.equal(await page.locator('#person-new-password-error').count(), 0);
    await screenshot('04-password-set-desktop-en');

    await phone.page.reload();
    await phone.page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await signIn(phone.page, suite.farm.code, minh);
    await phone.page.getByRole('alert').filter({ hasText: 'The account or password is incorrect' }).waitFor();
    await signIn(phone.page, suite.farm.code, { username: 'minh', password: 'new-harvest-77' });
    await phone.page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();

    // Removal, after a confirmation (Escape first: nothing happens).
    const remove = page.getByRole('button', { name: 'Remove Minh Le' });
    await remove.click();
    const dialog = page.getByRole('dialog', { name: 'Remove Minh Le?' });
    await dialog
      .getByText('Minh Le (minh) can no longer sign in to the farm app.', { exact: false })
      .waitFor();
    await waitForFocus(page, 'button', 'Cancel');
    await screenshot('05-remove-confirmation-desktop-en', { fullPage: false });
    await assertAccessible(page);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await waitForFocus(page, 'button', 'Remove Minh Le');
    await remove.click();
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Minh Le was removed.' }).waitFor();
    await waitForFocus(page, 'h1', 'People');
    await page.getByRole('row', { name: /Minh Le/ }).waitFor({ state: 'detached' });
    const left = (await owner.get('/api/users?pageLimit=100')).body.map(
      (u: { username: string }) => u.username,
    );
    assert.ok(!left.includes('minh'), `minh is gone: ${left}`);

    // The owner's own page: no removal, no role change, said plainly.
    await page.getByRole('link', { name: 'Ana Tran' }).click();
    await page.getByRole('heading', { level: 1, name: 'Ana Tran' }).waitFor();
    await page
      .getByText(
        'This is you. You cannot remove yourself or take away your own owner role: another owner can do that. Change your own password under Account.',
      )
      .waitFor();
    assert.equal(await page.getByRole('button', { name: /Remove/ }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Save role' }).count(), 0);
    assert.equal(
      await page.getByRole('button', { name: 'Set password' }).count(),
      0,
      'own password: Account',
    );
    await screenshot('06-own-page-desktop-en');
    await assertAccessible(page);
  });

  it('in Vietnamese at phone width: the list, the form and its refusals fit', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/people');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.farm.owner, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Nhân sự' }).waitFor();
    await page
      .getByRole('row', { name: /Ana Tran \(bạn\)/ })
      .getByText('Chủ trang trại')
      .waitFor();
    await assertFits(page);
    await screenshot('10-list-phone-vi');
    await assertAccessible(page);

    await page.getByRole('link', { name: 'Thêm người' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Thêm người' }).waitFor();
    await page.getByLabel('Tên đăng nhập').fill('Chị Lan');
    await page.getByLabel('Mật khẩu ban đầu').fill('mat-khau-dai');
    await page.getByRole('button', { name: 'Thêm người' }).click();
    await page
      .locator('#person-username-error')
      .filter({ hasText: 'Chỉ dùng chữ thường a–z không dấu, chữ số và . _ @ -, bắt đầu bằng chữ hoặc số.' })
      .waitFor();
    await assertFits(page);
    await screenshot('11-add-refused-phone-vi');
    await assertAccessible(page);

    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Add a person' }).waitFor();
    await assertFits(page);
    await screenshot('12-add-phone-en');
    await page.getByRole('link', { name: 'All people' }).click();
    await page.getByRole('heading', { level: 1, name: 'People' }).waitFor();
    await page.getByRole('link', { name: suite.staff.username }).click();
    await page.getByRole('heading', { level: 1, name: suite.staff.username }).waitFor();
    await assertFits(page);
    await screenshot('13-person-phone-en');
    await assertAccessible(page);
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('heading', { name: 'Đặt mật khẩu mới' }).waitFor();
    await assertFits(page);
    await screenshot('14-person-phone-vi');
    await assertAccessible(page);

    await page.setViewportSize(DESKTOP);
    await page.getByRole('link', { name: 'Tất cả nhân sự' }).click();
    await page.getByRole('heading', { level: 1, name: 'Nhân sự' }).waitFor();
    await page.getByRole('columnheader', { name: 'Vai trò' }).waitFor();
    await screenshot('15-list-desktop-vi');
    await assertAccessible(page);
  });

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    it(`staff (${size}) following a link to People get the owner-only notice, and nothing is asked`, async () => {
      const { page, screenshot } = await screen({ viewport });
      const asked: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/api/users')) asked.push(request.url());
      });
      await page.goto('/manage/people');
      await signIn(page, suite.farm.code, suite.staff);
      await page.getByRole('heading', { name: 'Only owners can use People' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Add a person' }).count(), 0);
      await page.goto(`/manage/people/${suite.farm.owner.id}`);
      await page.getByRole('heading', { name: 'Only owners can use People' }).waitFor();
      await page.goto('/manage/people/new');
      await page.getByRole('heading', { name: 'Only owners can use People' }).waitFor();
      assert.equal(await page.getByLabel('Username').count(), 0);
      assert.deepEqual(asked, [], 'no request to the users API');
      if (size === 'phone') await assertFits(page);
      await screenshot(`20-staff-owner-only-${size}`, { fullPage: false });
      await assertAccessible(page);
    });
  }
});
