// Keys for programs (API keys) in the People section (/manage/people/keys, owners only), in a real
// headless Chromium against a real Furrow: the owner adds a key (the API's refusals next to their
// field), sees it once and copies it, a program uses the copied key (its last use shows after a
// reload), an expired key is marked, and the owner revokes the key after a confirmation: it is
// refused at once. In Vietnamese at phone width the list, the form and the shown-once key fit.
// Staff who follow a link get the owner-only notice and nothing is asked of the API. Every state
// is checked with axe; screenshots under test-output/api-keys/.
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

const OUTPUT = join(TEST_OUTPUT_DIR, 'api-keys');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** The answer to a program's call made with this key. */
async function callWith(url: string, key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/auth/me`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json() };
}

describe('Keys for programs [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;

  it('the owner adds a key, copies it once, a program uses it, and revoking it stops it at once', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    const owner = client(suite.t.url, await loginToken(suite.t.url, suite.farm.code, suite.farm.owner));
    await page.goto('/manage/people');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'People' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Keys for programs' }).waitFor();
    await page.getByRole('link', { name: 'Manage keys for programs' }).click();
    await page.getByRole('heading', { level: 1, name: 'Keys for programs' }).waitFor();
    await waitForFocus(page, 'h1', 'Keys for programs');
    await page.getByRole('heading', { name: 'No API keys yet' }).waitFor();
    await screenshot('01-empty-desktop-en');
    await assertAccessible(page);

    // A key that expires in a moment (the server's clock stands at the suite's start).
    const expiresAt = Date.now() + 1000;
    const soon = await owner.post('/api/auth/api-keys', {
      json: { name: 'Old sensor', role: 'staff', expires_at: new Date(expiresAt).toISOString() },
    });
    assert.equal(soon.status, 201, soon.text);

    // Refused first: no name and a day already past; both said next to their field.
    await page.getByRole('link', { name: 'Add a key' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Add a key' }).waitFor();
    await waitForFocus(page, 'h1', 'Add a key');
    assert.equal(await page.getByRole('radio', { name: /Staff/ }).isChecked(), true, 'staff unless chosen');
    await page.getByLabel('Last day it works (optional)').fill('2020-01-01');
    await page.getByRole('button', { name: 'Add key' }).click();
    await page.locator('#key-name-error').filter({ hasText: 'Fill this in.' }).waitFor();
    await page.locator('#key-expires-error').filter({ hasText: 'Choose today or a later day.' }).waitFor();
    await waitForFocusedId(page, 'key-name');
    assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    await screenshot('02-add-refused-desktop-en');
    await assertAccessible(page);

    const nextYear = `${new Date().getFullYear() + 1}-06-30`;
    await page.getByLabel('Name', { exact: true }).fill('Greenhouse gateway');
    await page.getByLabel('Last day it works (optional)').fill(nextYear);
    await page.getByRole('button', { name: 'Add key' }).click();

    // Shown once, with its Copy button; the focus is on it.
    await page.getByRole('heading', { level: 2, name: 'Your new key' }).waitFor();
    await waitForFocus(page, 'h2', 'Your new key');
    await page
      .getByRole('status')
      .filter({ hasText: 'Key “Greenhouse gateway” added. Copy it now: you will not see it again.' })
      .waitFor();
    await page.getByText('You will not see it again: paste it into the program now.').waitFor();
    const shown = await page.getByLabel('Your new key', { exact: true }).inputValue();
    assert.match(shown, /^fk_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied. Paste it into the program now.').waitFor();
    const key = String(await page.evaluate('navigator.clipboard.readText()'));
    assert.equal(key, shown, 'the clipboard holds the key');
    const row = page.getByRole('row', { name: /Greenhouse gateway/ });
    await row.getByText(`${key.slice(0, 9)}…`, { exact: true }).waitFor();
    await row.getByText('Record work, like staff').waitFor();
    assert.equal(await row.locator('td[data-label="Last used"]').innerText(), 'Never');
    assert.equal(await row.locator('td[data-label="Expires"]').innerText(), `30 Jun ${nextYear.slice(0, 4)}`);
    await screenshot('03-key-shown-once-desktop-en');
    await assertAccessible(page);

    // A program uses the copied key: it acts for the owner, as staff.
    const used = await callWith(suite.t.url, key);
    assert.equal(used.status, 200, JSON.stringify(used.body));
    assert.equal(used.body.data.user.username, suite.farm.owner.username);
    assert.equal(used.body.data.user.role, 'staff');

    // After a reload the key is not shown again; its last use and the expired key are.
    await page.waitForTimeout(Math.max(0, expiresAt + 200 - Date.now()));
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Keys for programs' }).waitFor();
    await row.locator('td[data-label="Last used"] time').waitFor();
    assert.notEqual(await row.locator('td[data-label="Last used"]').innerText(), 'Never');
    assert.equal(await page.getByLabel('Your new key', { exact: true }).count(), 0, 'shown once only');
    assert.equal(await page.getByText(key).count(), 0);
    const expired = page.getByRole('row', { name: /Old sensor/ });
    await expired.getByText('Expired', { exact: true }).waitFor();
    await expired.getByText('It no longer works.', { exact: false }).waitFor();
    await screenshot('04-list-desktop-en');
    await assertAccessible(page);

    // Revoke, after a confirmation (Escape first: nothing happens).
    const revoke = row.getByRole('button', { name: 'Revoke Greenhouse gateway' });
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the key “Greenhouse gateway”?' });
    await dialog.getByText('Programs using it stop working at once.', { exact: false }).waitFor();
    await waitForFocus(page, 'button', 'Cancel');
    await screenshot('05-revoke-confirmation-desktop-en', { fullPage: false });
    await assertAccessible(page);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await waitForFocus(page, 'button', 'Revoke Greenhouse gateway');
    assert.equal((await callWith(suite.t.url, key)).status, 200, 'still works after Escape');
    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'The key “Greenhouse gateway” was revoked: programs using it stopped working.' })
      .waitFor();
    await waitForFocus(page, 'h1', 'Keys for programs');
    await row.waitFor({ state: 'detached' });
    assert.equal((await callWith(suite.t.url, key)).status, 401, 'a revoked key is refused at once');
    await screenshot('06-revoked-desktop-en');
    await assertAccessible(page);
  });

  it('in Vietnamese at phone width: the list, the form, the key shown once and the confirmation fit', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/people');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.farm.owner, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Nhân sự' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Khóa cho chương trình' }).waitFor();
    await assertFits(page);
    await screenshot('10-people-card-phone-vi');
    await page.getByRole('link', { name: 'Quản lý khóa cho chương trình' }).click();
    await page.getByRole('heading', { level: 1, name: 'Khóa cho chương trình' }).waitFor();
    await page
      .getByRole('row', { name: /Old sensor/ })
      .getByText('Đã hết hạn', { exact: true })
      .waitFor();
    await assertFits(page);
    await screenshot('11-list-phone-vi');
    await assertAccessible(page);

    await page.getByRole('link', { name: 'Thêm khóa' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Thêm khóa' }).waitFor();
    await page.getByRole('button', { name: 'Thêm khóa' }).click();
    await page.locator('#key-name-error').filter({ hasText: 'Vui lòng điền mục này.' }).waitFor();
    await waitForFocusedId(page, 'key-name');
    await assertFits(page);
    await screenshot('12-add-refused-phone-vi');
    await assertAccessible(page);

    await page.getByLabel('Tên', { exact: true }).fill('Trạm thời tiết');
    await page.getByRole('radio', { name: /Chủ trang trại/ }).check();
    await page.getByRole('button', { name: 'Thêm khóa' }).click();
    await waitForFocus(page, 'h2', 'Khóa mới của bạn');
    await page
      .getByText('Bạn sẽ không thấy lại khóa này: hãy dán nó vào chương trình ngay bây giờ.')
      .waitFor();
    const key = await page.getByLabel('Khóa mới của bạn', { exact: true }).inputValue();
    const row = page.getByRole('row', { name: /Trạm thời tiết/ });
    await row.getByText('Thay đổi mọi thứ, như chủ trang trại').waitFor();
    await row.getByText('Chưa dùng lần nào').waitFor();
    await assertFits(page);
    await screenshot('13-key-shown-once-phone-vi');
    await assertAccessible(page);
    const used = await callWith(suite.t.url, key);
    assert.equal(used.body.data.user.role, 'owner', 'an owner key acts as an owner');

    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.getByRole('heading', { level: 2, name: 'Your new key' }).waitFor();
    await assertFits(page);
    await screenshot('14-key-shown-once-phone-en');
    await assertAccessible(page);
    await page.getByLabel('Language').selectOption('vi');

    await row.getByRole('button', { name: 'Thu hồi Trạm thời tiết' }).click();
    const dialog = page.getByRole('dialog', { name: 'Thu hồi khóa “Trạm thời tiết”?' });
    await dialog.getByText('sẽ ngừng hoạt động ngay lập tức', { exact: false }).waitFor();
    await waitForFocus(page, 'button', 'Hủy');
    await assertFits(page);
    await screenshot('15-revoke-confirmation-phone-vi', { fullPage: false });
    await assertAccessible(page);
    await dialog.getByRole('button', { name: 'Hủy' }).click();
    await waitForFocus(page, 'button', 'Thu hồi Trạm thời tiết');

    await page.getByRole('button', { name: 'Tôi đã lưu khóa' }).click();
    await page.getByRole('status').filter({ hasText: 'Khóa đã được ẩn.' }).waitFor();
    await waitForFocus(page, 'h1', 'Khóa cho chương trình');
    assert.equal(await page.getByLabel('Khóa mới của bạn', { exact: true }).count(), 0);

    await page.setViewportSize(DESKTOP);
    await page.getByRole('columnheader', { name: 'Dùng lần cuối' }).waitFor();
    await screenshot('16-list-desktop-vi');
    await assertAccessible(page);
    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Keys for programs' }).waitFor();
    await page.setViewportSize(PHONE);
    await assertFits(page);
    await screenshot('17-list-phone-en');
    await page.getByRole('link', { name: 'Add a key' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Add a key' }).waitFor();
    await assertFits(page);
    await screenshot('18-add-phone-en');
    await assertAccessible(page);
  });

  it('staff following a link to the keys get the owner-only notice, and nothing is asked', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    const asked: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/auth/api-keys')) asked.push(request.url());
    });
    await page.goto('/manage/people/keys');
    await signIn(page, suite.farm.code, suite.staff);
    await page.getByRole('heading', { name: 'Only owners can use People' }).waitFor();
    await page.goto('/manage/people/keys/new');
    await page.getByRole('heading', { name: 'Only owners can use People' }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).count(), 0);
    assert.deepEqual(asked, [], 'no request to the keys API');
    await assertFits(page);
    await screenshot('20-staff-owner-only-phone', { fullPage: false });
    await assertAccessible(page);
  });
});
