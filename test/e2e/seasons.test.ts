// The farm app's Seasons section (/manage/seasons) in a real Chromium against a real Furrow on
// SQLite: an owner plans a season from a template at desktop width and sees it, with its generated
// code and its crop, in the list; a refused form shows the reason next to the field; the same
// pages in Vietnamese at phone width; staff read without being offered changes. Screenshots go to
// test-output/seasons/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { client } from '../support/app.js';
import {
  assertAccessible,
  sidewaysOverflow,
  signIn,
  TEST_OUTPUT_DIR,
  useScreenSuite,
  waitForFocus,
  waitForFocusedId,
} from '../support/browser.js';
import { loginToken } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'seasons');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

describe('Seasons section [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;
  const seed: { rice: number; corn: number; farm: number; block: number; template: number } = {
    rice: 0,
    corn: 0,
    farm: 0,
    block: 0,
    template: 0,
  };
  let api: ReturnType<typeof client>;

  before(async () => {
    api = client(suite.t.url, await loginToken(suite.t.url, suite.farm.code, suite.farm.owner));
    const created = async (path: string, json: unknown): Promise<number> => {
      const res = await api.post(path, { json });
      assert.equal(res.status, 201, `${path}: ${res.text}`);
      return (Array.isArray(res.body) ? res.body[0] : res.body.data).id as number;
    };
    seed.rice = await created('/api/crop/crop', { name: 'Jasmine rice', code: 'RICE-J', status: 1 });
    seed.corn = await created('/api/crop/crop', { name: 'Sweet corn', code: 'CORN-S', status: 1 });
    seed.farm = await created('/api/farms', { name: 'River farm' });
    seed.block = await created('/api/blocks', { name: 'Block A', farm_id: seed.farm });
    seed.template = await created('/api/template/season', {
      name: 'Spring rice',
      crop_id: seed.rice,
      description: 'Transplant in March, harvest in June',
    });
  });

  it('an owner starts a season from a template at desktop width: code generated, in the list with its crop', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/seasons');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Seasons' }).waitFor();
    await page.getByRole('heading', { name: 'No seasons yet' }).waitFor();
    await page.getByText('Spring rice').waitFor();
    await screenshot('01-empty-desktop-en');
    await assertAccessible(page, 'empty list');

    await page.getByRole('link', { name: 'Start a season' }).first().click();
    await waitForFocus(page, 'h1', 'Start a season');
    await page.getByLabel('Season name').waitFor();

    // Nothing filled in: the API's refusals show next to their fields, the focus on the first.
    await page.getByRole('button', { name: 'Start season' }).click();
    await page.getByText('Please correct the highlighted fields.').waitFor();
    await waitForFocusedId(page, 'season-crop');
    const nameError = page.locator('#season-name-error');
    assert.equal(await nameError.textContent(), 'Fill this in.');
    assert.equal(await page.getByLabel('Season name').getAttribute('aria-invalid'), 'true');
    await screenshot('02-field-errors-desktop-en');
    await assertAccessible(page, 'field errors');

    // The template fills in the crop and the name.
    await page.getByLabel('Season template (optional)').selectOption({ label: 'Spring rice' });
    assert.equal(await page.getByLabel('Crop', { exact: true }).inputValue(), String(seed.rice));
    assert.equal(await page.getByLabel('Season name').inputValue(), 'Spring rice');
    await page.getByLabel('Season name').fill('Spring rice 2026');
    await page.getByLabel('Start date').fill('2026-03-01');
    await page.getByLabel('End date (optional)').fill('2026-06-30');
    await page.getByLabel('Farm', { exact: true }).selectOption({ label: 'River farm' });
    await page.getByLabel('Block', { exact: true }).selectOption({ label: 'Block A' });
    await screenshot('03-form-filled-desktop-en');
    await page.getByRole('button', { name: 'Start season' }).click();

    await waitForFocus(page, 'h1', 'Seasons');
    const toast = page.locator('.toast-info');
    await toast
      .filter({ hasText: /^Season Spring rice 2026 started\. Its code is S20260301-\w{6}\.$/ })
      .waitFor();
    const code = /(S20260301-\w{6})/.exec((await toast.textContent()) ?? '')?.[1];
    const row = page.locator('tr', { hasText: 'Spring rice 2026' });
    await row.getByText(`Code ${code}`).waitFor();
    await row.getByRole('cell', { name: 'Jasmine rice' }).waitFor();
    await row.getByText('River farm · Block A').waitFor();
    await screenshot('04-started-desktop-en');
    await assertAccessible(page, 'list with the new season');

    // A template of its own, added below the list.
    await page.getByLabel('Template name').fill('Winter corn');
    await page.locator('#template-crop').selectOption({ label: 'Sweet corn' });
    await page.getByRole('button', { name: 'Add template' }).click();
    await page.locator('.toast-info', { hasText: 'Template Winter corn added.' }).waitFor();
    await waitForFocusedId(page, 'template-name');
    await page.locator('.template-item', { hasText: 'Winter corn' }).getByText('Crop: Sweet corn').waitFor();
    await screenshot('05-template-added-desktop-en');
    await assertAccessible(page, 'template added');

    // Edit: the form keeps the season; a changed end date is saved.
    await page.getByRole('link', { name: 'Edit season Spring rice 2026' }).click();
    await waitForFocus(page, 'h1', 'Edit season');
    assert.equal(await page.getByLabel('Season code').inputValue(), code);
    await page.getByLabel('End date (optional)').fill('2026-07-15');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForFocus(page, 'h1', 'Seasons');
    await page.locator('.toast-info', { hasText: 'Changes to Spring rice 2026 saved.' }).waitFor();
    await row.getByText('15 Jul 2026').waitFor();

    // Seasons of one crop.
    await page.getByLabel('Show seasons of').selectOption({ label: 'Sweet corn' });
    await page.getByRole('heading', { name: 'No seasons of this crop' }).waitFor();
    await assertAccessible(page, 'no season of the crop');
    await page.getByLabel('Show seasons of').selectOption({ label: 'Jasmine rice' });
    await page.getByText('1 season', { exact: true }).waitFor();
    await row.waitFor();
    await screenshot('05b-filtered-desktop-en');
  });

  it('in Vietnamese at phone width: the list as cards, the form, a season deleted after asking', async () => {
    const res = await api.post('/api/crop/season', {
      json: { name: 'Ngô đông thử', crop_id: seed.corn, start_date: '2026-11-01', code: '' },
    });
    assert.equal(res.status, 201);
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/seasons');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.farm.owner, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Mùa vụ' }).waitFor();
    const row = page.locator('tr', { hasText: 'Ngô đông thử' });
    await row.getByText('Sweet corn').waitFor();
    await row.getByText(/^Mã S20261101-\w{6}$/).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the list fits the phone');
    await screenshot('06-list-phone-vi');
    await assertAccessible(page, 'list, phone, vi');

    await page.getByRole('button', { name: 'Xóa mùa vụ Ngô đông thử' }).click();
    const dialog = page.getByRole('dialog', { name: 'Xóa mùa vụ Ngô đông thử?' });
    await dialog.waitFor();
    await screenshot('07-delete-dialog-phone-vi', { fullPage: false });
    await assertAccessible(page, 'delete dialog, vi');
    await dialog.getByRole('button', { name: 'Xóa' }).click();
    await page.locator('.toast-info', { hasText: 'Đã xóa mùa vụ Ngô đông thử.' }).waitFor();
    await waitForFocus(page, 'h1', 'Mùa vụ');
    assert.equal(await row.count(), 0);

    await page.getByRole('link', { name: 'Bắt đầu mùa vụ', exact: true }).first().click();
    await waitForFocus(page, 'h1', 'Bắt đầu mùa vụ');
    await page.getByLabel('Tên mùa vụ').waitFor();
    await page.getByRole('button', { name: 'Bắt đầu mùa vụ' }).click();
    await page.locator('#season-name-error', { hasText: 'Vui lòng điền mục này.' }).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the form fits the phone');
    await screenshot('08-form-errors-phone-vi');
    await assertAccessible(page, 'form errors, phone, vi');

    // The same form in English on the phone, through the header's language control.
    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Start a season' }).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await screenshot('09-form-phone-en');
    await page.getByRole('link', { name: 'Back to seasons' }).click();
    await waitForFocus(page, 'h1', 'Seasons');
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await screenshot('10-list-phone-en');
  });

  it('staff read seasons and templates in Vietnamese at desktop width without being offered changes', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/seasons');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.staff, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Mùa vụ' }).waitFor();
    await page.locator('tr', { hasText: 'Spring rice 2026' }).waitFor();
    await page.getByRole('heading', { name: 'Mẫu mùa vụ' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Bắt đầu mùa vụ' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Xóa/ }).count(), 0);
    assert.equal(await page.getByRole('link', { name: /^Sửa/ }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Thêm mẫu' }).count(), 0);
    await screenshot('11-staff-desktop-vi');
    await assertAccessible(page, 'staff, vi');
  });
});
