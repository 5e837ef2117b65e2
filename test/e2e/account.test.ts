// The farm app's Account page (/manage/account) in a real headless Chromium against a real Furrow:
// changing one's name and language (the app switches at once, and the account's language is used
// at the next sign-in in a browser where nobody picked one), changing the password (a wrong
// current password is refused next to its field; then signing out and in with the new one), in
// English and Vietnamese, phone and desktop. Screenshots under test-output/account/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { request } from '../support/app.js';
import {
  assertAccessible,
  sidewaysOverflow,
  signIn,
  TEST_OUTPUT_DIR,
  useScreenSuite,
  waitForFocus,
  waitForFocusedId,
} from '../support/browser.js';
import { makeUser } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'account');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

describe('Account page [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;

  it('changes name and language: the app switches at once; the next sign-in elsewhere starts in it', async () => {
    const user = await makeUser(suite.t.database.db, suite.farm, 'staff');
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/');
    await signIn(page, suite.farm.code, user);
    await page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
    await waitForFocus(page, 'h1', 'Account');
    assert.equal(await page.title(), 'Account · Furrow');
    await page.getByText(user.username, { exact: true }).waitFor();
    await screenshot('01-account-desktop-en');
    await assertAccessible(page);

    // A wrong e-mail is refused next to its field, what was typed is kept.
    await page.getByLabel('Name', { exact: true }).fill('Chi Le');
    await page.getByLabel('E-mail (optional)').fill('chi@');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .locator('#account-email-error')
      .filter({ hasText: 'This is not an e-mail address.' })
      .waitFor();
    await waitForFocusedId(page, 'account-email');
    assert.equal(await page.getByLabel('E-mail (optional)').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Chi Le');
    await assertAccessible(page);

    await page.getByLabel('E-mail (optional)').fill('chi@example.com');
    await page.getByLabel('Preferred language').selectOption('vi');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tài khoản' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Đã lưu thông tin của bạn.' }).waitFor();
    assert.equal(await page.evaluate('document.documentElement.lang'), 'vi');
    await page.getByText('Đăng nhập với tên Chi Le').waitFor();
    assert.equal(await page.locator('#account-email-error').count(), 0);
    const account = await request(suite.t.url, 'POST', '/api/auth/login', {
      json: { tenantcode: suite.farm.code, username: user.username, password: user.password },
    });
    const stored = await request(suite.t.url, 'GET', '/api/account', { token: account.body.data.token });
    assert.deepEqual(
      [stored.body.data.name, stored.body.data.email, stored.body.data.language],
      ['Chi Le', 'chi@example.com', 'vi'],
    );
    await screenshot('02-saved-desktop-vi');
    await assertAccessible(page);

    // Another browser where nobody picked a language: after sign-in the account's language is used.
    const other = await screen({ viewport: PHONE });
    await other.page.goto('/manage/');
    await other.page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await signIn(other.page, suite.farm.code, user);
    await other.page.getByRole('heading', { level: 1, name: 'Hôm nay' }).waitFor();
    assert.equal(await other.page.evaluate('document.documentElement.lang'), 'vi');
    assert.equal(await other.page.evaluate('localStorage.getItem("furrow.language")'), null, 'not a pick');

    // A language picked in this browser wins over the account's.
    const picked = await screen({ viewport: PHONE });
    await picked.page.goto('/manage/');
    await picked.page.getByLabel('Language').selectOption('en');
    await signIn(picked.page, suite.farm.code, user);
    await picked.page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
    await picked.page.getByRole('heading', { level: 2, name: /^Your tasks/ }).waitFor();
    assert.equal(await picked.page.evaluate('document.documentElement.lang'), 'en');
  });

  it('changes the password on a phone: a wrong current one is refused next to its field; then sign in with the new one', async () => {
    const user = await makeUser(suite.t.database.db, suite.farm, 'staff');
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/account');
    await signIn(page, suite.farm.code, user);
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Change password' }).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0, 'fits the phone');

    await page.getByLabel('Current password').fill('not-my-password');
    await page.getByLabel('New password', { exact: true }).fill('green valley tomatoes');
    await page.getByLabel('New password again').fill('green valley tomatoes');
    await page.getByRole('button', { name: 'Change password' }).click();
    const error = page.locator('#account-current-password-error');
    await error.filter({ hasText: 'This is not your current password.' }).waitFor();
    await waitForFocusedId(page, 'account-current-password');
    assert.equal(await page.getByLabel('Current password').getAttribute('aria-invalid'), 'true');
    assert.match(
      (await page.getByLabel('Current password').getAttribute('aria-describedby')) ?? '',
      /account-current-password-error/,
    );
    assert.equal(
      await page.getByLabel('New password', { exact: true }).inputValue(),
      'green valley tomatoes',
    );
    await screenshot('03-wrong-password-phone-en');
    await assertAccessible(page);

    // Two different new passwords are caught before asking.
    await page.getByLabel('Current password').fill(user.password);
    await page.getByLabel('New password again').fill('green valley tomato');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('#account-repeat-password-error').filter({ hasText: 'not the same' }).waitFor();
    await waitForFocusedId(page, 'account-repeat-password');
    assert.equal(await error.count(), 0, 'the earlier refusal is gone');

    await page.getByLabel('New password again').fill('green valley tomatoes');
    await page.getByRole('button', { name: 'Change password' }).click();
    const done = page.locator('.notice-success').filter({ hasText: 'Your password is changed.' });
    await done.waitFor();
    await page.getByRole('status').filter({ hasText: 'Your password is changed.' }).waitFor();
    await waitForFocus(page, 'p', /^Your password is changed\./);
    assert.equal(await page.getByLabel('Current password').inputValue(), '', 'the fields are emptied');
    await screenshot('04-password-changed-phone-en');
    await assertAccessible(page);

    // Sign out (under "More" on a phone) and in again with the new password.
    await page.getByRole('button', { name: 'More' }).click();
    await page.locator('button.more-sign-out').click();
    await waitForFocus(page, 'h1', 'Sign in');
    await signIn(page, suite.farm.code, { username: user.username, password: user.password });
    await page.getByRole('alert').filter({ hasText: 'The account or password is incorrect' }).waitFor();
    await signIn(page, suite.farm.code, { username: user.username, password: 'green valley tomatoes' });
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
  });

  it('speaks Vietnamese on a phone, the refusals included', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/account');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.farm.owner, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Tài khoản' }).waitFor();
    await page.getByLabel('Họ tên').waitFor();
    assert.equal(await page.getByLabel('Họ tên').inputValue(), 'Ana Tran');
    await page.getByLabel('Mật khẩu hiện tại').fill('sai-mat-khau');
    await page.getByLabel('Mật khẩu mới', { exact: true }).fill('ngan');
    await page.getByLabel('Nhập lại mật khẩu mới').fill('ngan');
    await page.getByRole('button', { name: 'Đổi mật khẩu' }).click();
    await page.locator('#account-new-password-error').filter({ hasText: 'Dùng ít nhất 8 ký tự.' }).waitFor();
    await page.getByLabel('Mật khẩu mới', { exact: true }).fill('ruong lua xanh');
    await page.getByLabel('Nhập lại mật khẩu mới').fill('ruong lua xanh');
    await page.getByRole('button', { name: 'Đổi mật khẩu' }).click();
    await page
      .locator('#account-current-password-error')
      .filter({ hasText: 'Đây không phải mật khẩu hiện tại của bạn.' })
      .waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0, 'fits the phone');
    await screenshot('05-account-phone-vi');
    await assertAccessible(page);
  });
});
