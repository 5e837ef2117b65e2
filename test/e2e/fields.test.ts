// The farm app's Fields section (/manage/fields) in a real headless Chromium against a real Furrow
// app serving the built web/dist: an owner keeps the records of farms, blocks, zones and parcels;
// staff read them on a phone in Vietnamese. Screenshots go to test-output/fields/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { request } from '../support/app.js';
import {
  accessibilityViolations,
  type ScreenPage,
  sidewaysOverflow,
  signIn,
  TEST_OUTPUT_DIR,
  useScreenSuite,
  waitForFocus,
} from '../support/browser.js';
import { loginToken } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'fields');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** axe finds nothing, and at phone width nothing sticks out sideways. */
async function checkPage(page: Page, phone = false): Promise<void> {
  assert.deepEqual(await accessibilityViolations(page), []);
  if (phone) {
    const overflow = await sidewaysOverflow(page);
    assert.ok(overflow <= 0, `no sideways scrolling at phone width (${overflow}px too wide)`);
  }
}

/** Waits until the focus is on the element with this id (a field to fix, which has no text). */
async function focusOnId(page: Page, id: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await page.evaluate('document.activeElement ? document.activeElement.id : null');
    if (last === id) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`focus on #${id}, found #${String(last)}`);
}

/** The announcement of an action's result (the live region's polite status). */
const announced = (page: Page, text: string | RegExp) =>
  page.getByRole('status').filter({ hasText: text }).waitFor();

describe('Fields section [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);

  /** Makes records through the real API with the owner's token. */
  let ownerToken: string | undefined;
  async function seed(path: string, json: Record<string, unknown>): Promise<{ id: number }> {
    ownerToken ??= await loginToken(suite.t.url, suite.farm.code, suite.farm.owner);
    const token = ownerToken;
    const res = await request(suite.t.url, 'POST', path, { json, token });
    assert.equal(res.status, 201, res.text);
    return res.body[0];
  }

  it('lets an owner at a desktop add a farm, a block, a zone and a parcel, edit one and delete with care', async () => {
    const { page, screenshot } = await suite.screen({ viewport: DESKTOP });
    await page.goto('/manage/fields');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Fields' }).waitFor();

    // Empty: the next step is offered.
    await page.getByRole('heading', { name: 'No farms yet' }).waitFor();
    await checkPage(page);
    await screenshot('01-empty-desktop-en');

    // A farm without a name: the API's refusal is shown next to the name; what was typed stays.
    await page.getByRole('link', { name: 'Add a farm' }).first().click();
    await waitForFocus(page, 'h1', 'Add a farm');
    await page.getByLabel('Address (optional)').fill('Can Tho, Mekong Delta');
    await page.getByLabel('Size (optional)').fill('3.2 ha');
    await page.getByRole('button', { name: 'Add farm' }).click();
    await page.locator('#farm-name-error').filter({ hasText: 'Fill this in.' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'Please correct the highlighted fields.' }).waitFor();
    await focusOnId(page, 'farm-name');
    assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Address (optional)').inputValue(), 'Can Tho, Mekong Delta');
    assert.equal(await page.getByLabel('Size (optional)').inputValue(), '3.2 ha');
    await checkPage(page);
    await screenshot('02-farm-name-refused-desktop-en');

    await page.getByLabel('Name').fill('River farm');
    await page.getByRole('button', { name: 'Add farm' }).click();
    await waitForFocus(page, 'h1', 'River farm');
    await announced(page, 'Farm “River farm” added.');
    await page.getByText('No blocks in this farm yet.').waitFor();
    await page.getByText('Can Tho, Mekong Delta').waitFor();
    await checkPage(page);
    await screenshot('03-farm-empty-desktop-en');

    // A block: the farm is chosen already.
    await page.getByRole('link', { name: 'Add a block' }).click();
    await waitForFocus(page, 'h1', 'Add a block');
    const farmPicked = await page
      .getByLabel('Farm')
      .evaluate((e) => (e as unknown as { selectedOptions: { text: string }[] }).selectedOptions[0]?.text);
    assert.equal(farmPicked, 'River farm');
    await page.getByLabel('Name').fill('North block');
    await page.getByRole('button', { name: 'Add a block' }).click();
    await waitForFocus(page, 'h1', 'River farm');
    await announced(page, 'Block “North block” added.');
    await page.getByRole('heading', { level: 3, name: 'North block' }).waitFor();
    await page.getByRole('link', { name: 'Blocks (1)' }).waitFor();

    // A zone, on its tab: the tab keeps the focus.
    await page.getByRole('link', { name: 'Zones (0)' }).click();
    await waitForFocus(page, 'a', 'Zones (0)');
    await page.getByRole('link', { name: 'Add a zone' }).click();
    await waitForFocus(page, 'h1', 'Add a zone');
    await page.getByLabel('Name').fill('Greenhouse A');
    await page.getByRole('button', { name: 'Add a zone' }).click();
    await waitForFocus(page, 'h1', 'River farm');
    await announced(page, 'Zone “Greenhouse A” added.');
    await page.getByRole('heading', { level: 3, name: 'Greenhouse A' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Zones (1)' }).getAttribute('aria-current'), 'page');

    // A parcel in that block and zone.
    await page.getByRole('link', { name: 'Parcels (0)' }).click();
    await page.getByRole('link', { name: 'Add a parcel' }).click();
    await waitForFocus(page, 'h1', 'Add a parcel');
    await page.getByLabel('Name').fill('C3');
    await page.getByLabel('Code (optional)').fill('C-3');
    await page.getByLabel('Block (optional)').selectOption({ label: 'North block' });
    await page.getByLabel('Zone (optional)').selectOption({ label: 'Greenhouse A' });
    await page.getByLabel('Area in square metres (optional)').fill('250.5');
    await checkPage(page);
    await screenshot('04-parcel-form-desktop-en');
    await page.getByRole('button', { name: 'Add a parcel' }).click();
    await waitForFocus(page, 'h1', 'River farm');
    await announced(page, 'Parcel “C3” added.');
    const card = page.locator('.place-card').filter({ hasText: 'C3' });
    await card.getByText('250.5 m²').waitFor();
    await card.getByText('North block').waitFor();
    await card.getByText('Greenhouse A').waitFor();
    await checkPage(page);
    await screenshot('05-parcels-desktop-en');

    // Edit it: a code too long is refused next to the code, the rest kept; then saved.
    await page.getByRole('link', { name: 'Edit C3' }).click();
    await waitForFocus(page, 'h1', 'Edit parcel');
    assert.equal(await page.getByLabel('Area in square metres (optional)').inputValue(), '250.5');
    await page.getByLabel('Name').fill('C3 east');
    await page.getByLabel('Code (optional)').fill('C'.repeat(256));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#place-code-error').filter({ hasText: 'Use at most 255 characters.' }).waitFor();
    await focusOnId(page, 'place-code');
    assert.equal(await page.getByLabel('Name').inputValue(), 'C3 east');
    await checkPage(page);
    await screenshot('06-parcel-code-refused-desktop-en');
    await page.getByLabel('Code (optional)').fill('C-3E');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForFocus(page, 'h1', 'River farm');
    await announced(page, 'Changes saved.');
    await page.getByRole('heading', { level: 3, name: 'C3 east' }).waitFor();

    // Deleting the farm while it holds places: asked first, then the API's answer in plain words;
    // nothing is lost and the focus is back on the button.
    await page.getByRole('button', { name: 'Delete farm' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this farm?' });
    await dialog.waitFor();
    await waitForFocus(page, 'button', 'Cancel');
    await checkPage(page);
    await screenshot('07-delete-farm-asked-desktop-en', { fullPage: false });
    await dialog.getByRole('button', { name: 'Delete farm' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'This farm still holds blocks (1), zones (1) and parcels (1)' })
      .waitFor();
    await waitForFocus(page, 'button', 'Delete farm');
    await page.getByRole('heading', { level: 1, name: 'River farm' }).waitFor();
    await checkPage(page);
    await screenshot('08-delete-farm-refused-desktop-en', { fullPage: false });

    // Deleting the parcel: its card goes, the focus goes to the list's heading.
    await page.getByRole('button', { name: 'Delete C3 east' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this parcel?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await announced(page, 'Parcel “C3 east” deleted.');
    await waitForFocus(page, 'h2', 'Parcels');
    await page.getByText('No parcels in this farm yet.').waitFor();
    await page.getByRole('link', { name: 'Parcels (0)' }).waitFor();
    await checkPage(page);
  });

  it('shows staff on a phone, in Vietnamese, every record and no way to change them', async () => {
    const farm = await seed('/api/farms', {
      name: 'Đồi chè Bảo Lộc',
      address: 'Bảo Lộc, Lâm Đồng',
      surface: '5 ha',
    });
    const block = await seed('/api/blocks', { name: 'Lô phía Bắc', farm_id: farm.id });
    const zone = await seed('/api/zones', { name: 'Nhà kính A', farm_id: farm.id });
    await seed('/api/parcels', {
      name: 'Thửa 7',
      code: 'T-7',
      farm_id: farm.id,
      block_id: block.id,
      zone_id: zone.id,
      area: 1200,
    });

    const { page, screenshot } = await suite.screen({ viewport: PHONE });
    await page.goto('/manage/fields');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.staff, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Khu đất' }).waitFor();
    await page.getByRole('link', { name: 'Đồi chè Bảo Lộc' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Thêm trang trại' }).count(), 0);
    await checkPage(page, true);
    await screenshot('11-farms-staff-phone-vi');

    await page.getByRole('link', { name: 'Đồi chè Bảo Lộc' }).click();
    await waitForFocus(page, 'h1', 'Đồi chè Bảo Lộc');
    await page.getByRole('heading', { level: 3, name: 'Lô phía Bắc' }).waitFor();
    await page.getByText('Bảo Lộc, Lâm Đồng').waitFor();
    for (const name of [
      'Sửa trang trại',
      'Xóa trang trại',
      'Thêm lô',
      'Sửa Lô phía Bắc',
      'Xóa Lô phía Bắc',
    ]) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
      assert.equal(await page.getByRole('link', { name }).count(), 0, name);
    }
    await checkPage(page, true);
    await screenshot('12-farm-staff-phone-vi');

    await page.getByRole('link', { name: 'Thửa đất (1)' }).click();
    const card = page.locator('.place-card').filter({ hasText: 'Thửa 7' });
    await card.getByText('1.200 m²').waitFor();
    await card.getByText('Nhà kính A').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Thêm thửa đất' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Xóa Thửa 7' }).count(), 0);
    await checkPage(page, true);
    await screenshot('13-parcels-staff-phone-vi');

    // A form's address followed by staff: a plain notice, and the API is not asked.
    await page.goto(`/manage/fields/${farm.id}/blocks/new`);
    await page.getByText('Chỉ chủ trang trại mới thêm hoặc sửa được các khu đất.').waitFor();
    await checkPage(page, true);
  });

  it('says so plainly when a farm is not there, and fits a phone and a desktop in both languages', async () => {
    // Owner on a phone in English: the farm list and a farm's page.
    const phone: ScreenPage = await suite.screen({ viewport: PHONE });
    await phone.page.goto('/manage/fields');
    await signIn(phone.page, suite.farm.code, suite.farm.owner);
    await phone.page.getByRole('link', { name: 'River farm' }).waitFor();
    await checkPage(phone.page, true);
    await phone.screenshot('21-farms-owner-phone-en');
    await phone.page.getByRole('link', { name: 'River farm' }).click();
    await waitForFocus(phone.page, 'h1', 'River farm');
    await phone.page.getByRole('heading', { level: 3, name: 'North block' }).waitFor();
    await checkPage(phone.page, true);
    await phone.screenshot('22-farm-owner-phone-en');
    await phone.page.getByRole('link', { name: 'Add a block' }).click();
    await waitForFocus(phone.page, 'h1', 'Add a block');
    await checkPage(phone.page, true);
    await phone.screenshot('23-block-form-phone-en');

    // A long list comes a page at a time; the first new parcel takes the focus.
    const big = await seed('/api/farms', { name: 'Big farm' });
    for (let n = 1; n <= 31; n++) await seed('/api/parcels', { name: `Plot ${n}`, farm_id: big.id });
    await phone.page.goto(`/manage/fields/${big.id}?show=parcels`);
    await phone.page.getByText('Showing 30 of 31').waitFor();
    assert.equal(await phone.page.locator('.place-card').count(), 30);
    await phone.page.getByRole('button', { name: 'Show more parcels' }).click();
    await waitForFocus(phone.page, 'h3', 'Plot 1');
    assert.equal(await phone.page.locator('.place-card').count(), 31);
    assert.equal(await phone.page.getByRole('button', { name: 'Show more parcels' }).count(), 0);
    await checkPage(phone.page, true);

    // A farm that does not exist (deleted, or a wrong link): said plainly, with Try again.
    await phone.page.goto('/manage/fields/999999');
    await phone.page.getByRole('alert').filter({ hasText: 'This farm does not exist' }).waitFor();
    await phone.page.getByRole('button', { name: 'Try again' }).waitFor();
    await checkPage(phone.page, true);
    await phone.screenshot('24-farm-missing-phone-en');
    // The 404 the page asked for is logged by Chromium; it is the state under test.
    const expected = phone.problems.filter((p) => /status of 404 .*\/api\/farms\/999999/.test(p));
    assert.ok(expected.length > 0);
    phone.problems.splice(0, phone.problems.length, ...phone.problems.filter((p) => !expected.includes(p)));

    // Owner at a desktop in Vietnamese: the list, the farm's zones and the add-farm form.
    const desk = await suite.screen({ viewport: DESKTOP });
    await desk.page.goto('/manage/fields');
    await desk.page.getByLabel('Language').selectOption('vi');
    await signIn(desk.page, suite.farm.code, suite.farm.owner, 'vi');
    await desk.page.getByRole('link', { name: 'Đồi chè Bảo Lộc' }).waitFor();
    await checkPage(desk.page);
    await desk.screenshot('31-farms-owner-desktop-vi');
    await desk.page.getByRole('link', { name: 'Đồi chè Bảo Lộc' }).click();
    // Edit the farm: what it had is in the form, the change is saved and said.
    await desk.page.getByRole('link', { name: 'Sửa trang trại' }).click();
    await waitForFocus(desk.page, 'h1', 'Sửa trang trại');
    assert.equal(await desk.page.getByLabel('Địa chỉ (không bắt buộc)').inputValue(), 'Bảo Lộc, Lâm Đồng');
    await desk.page.getByLabel('Hình thức sở hữu (không bắt buộc)').fill('Thuê 10 năm');
    await desk.page.getByRole('button', { name: 'Lưu thay đổi' }).click();
    await waitForFocus(desk.page, 'h1', 'Đồi chè Bảo Lộc');
    await announced(desk.page, 'Đã lưu thay đổi.');
    await desk.page.getByText('Thuê 10 năm').waitFor();
    await desk.page.getByRole('link', { name: 'Khu vực (1)' }).click();
    await desk.page.getByRole('button', { name: 'Xóa Nhà kính A' }).click();
    await desk.page
      .getByRole('dialog', { name: 'Xóa khu vực này?' })
      .getByRole('button', { name: 'Xóa' })
      .click();
    await desk.page.getByRole('alert').filter({ hasText: 'Khu vực này vẫn còn thửa đất (1)' }).waitFor();
    await waitForFocus(desk.page, 'button', 'Xóa');
    await checkPage(desk.page);
    await desk.screenshot('32-zone-refused-desktop-vi');
    await desk.page.getByRole('link', { name: 'Thêm khu vực' }).click();
    await waitForFocus(desk.page, 'h1', 'Thêm khu vực');
    await desk.page.getByRole('button', { name: 'Thêm khu vực' }).click();
    await desk.page.locator('#place-name-error').filter({ hasText: 'Vui lòng điền mục này.' }).waitFor();
    await checkPage(desk.page);
    await desk.screenshot('33-zone-form-refused-desktop-vi');

    // An empty farm is deleted: back to the list, said, and the focus on its heading.
    const empty = await seed('/api/farms', { name: 'Vườn thử' });
    await desk.page.goto(`/manage/fields/${empty.id}`);
    await desk.page.getByText('Trang trại này chưa có lô nào.').waitFor();
    await desk.page.getByRole('button', { name: 'Xóa trang trại' }).click();
    await desk.page
      .getByRole('dialog', { name: 'Xóa trang trại này?' })
      .getByRole('button', { name: 'Xóa trang trại' })
      .click();
    await announced(desk.page, 'Đã xóa trang trại “Vườn thử”.');
    await waitForFocus(desk.page, 'h1', 'Khu đất');
    assert.equal(await desk.page.getByRole('link', { name: 'Vườn thử' }).count(), 0);
    await checkPage(desk.page);
  });
});
