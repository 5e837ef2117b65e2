// The farm app's Crops section (/manage/crops) in a real headless Chromium against a real Furrow
// serving the built web/dist: crops and livestock, varieties and product groups. The owner keeps
// the records at desktop width; staff read them on a phone in Vietnamese and are offered no
// change. Every test fails on a console error; screenshots go to test-output/crops/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { request } from '../support/app.js';
import {
  assertAccessible,
  sidewaysOverflow,
  signIn,
  TEST_OUTPUT_DIR,
  useScreenSuite,
  waitForFocus,
} from '../support/browser.js';
import { loginToken } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'crops');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** The names in the first column of the list shown. */
async function listedNames(page: Page): Promise<string[]> {
  return page.locator('.record-table tbody .record-name').allTextContents();
}

/** Waits (up to 15 s) until `check` answers true. */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail('waited 15 s in vain');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the list shows exactly these names, in this order. */
async function listed(page: Page, names: string[]): Promise<void> {
  await until(async () => JSON.stringify(await listedNames(page)) === JSON.stringify(names));
}

/** The toast that says the result of an action. */
async function announced(page: Page, text: string): Promise<void> {
  await page.getByRole('status').filter({ hasText: text }).waitFor();
}

describe('Crops section [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;

  it('shows each empty list with the next step: owners are offered to add, staff are told who adds', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/crops');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Crops' }).waitFor();
    await page.getByRole('heading', { name: 'No crops or livestock yet' }).waitFor();
    assert.equal(await page.title(), 'Crops · Furrow');
    assert.equal(
      await page.getByRole('link', { name: 'Add crop or livestock' }).count(),
      2,
      'top and empty state',
    );
    await screenshot('01-empty-crops-desktop-en');
    await assertAccessible(page);

    const tabs = page.getByRole('navigation', { name: 'Crop records' });
    await tabs.getByRole('link', { name: 'Varieties' }).click();
    await page.getByRole('heading', { name: 'No varieties yet' }).waitFor();
    // The heading and tabs stay: the focus stays on the chosen tab, the title names it.
    await waitForFocus(page, 'a', 'Varieties');
    assert.equal(await tabs.getByRole('link', { name: 'Varieties' }).getAttribute('aria-current'), 'page');
    assert.equal(await page.title(), 'Varieties · Crops · Furrow');
    await assertAccessible(page);
    await tabs.getByRole('link', { name: 'Product groups' }).click();
    await page.getByRole('heading', { name: 'No product groups yet' }).waitFor();
    await screenshot('02-empty-groups-desktop-en');
    await assertAccessible(page);

    const staff = await screen({ viewport: PHONE });
    await staff.page.goto('/manage/crops');
    await staff.page.getByLabel('Language').selectOption('vi');
    await signIn(staff.page, suite.farm.code, suite.staff, 'vi');
    await staff.page.getByRole('heading', { level: 1, name: 'Cây trồng' }).waitFor();
    await staff.page.getByText('Chủ trang trại chưa thêm cây trồng hay vật nuôi nào.').waitFor();
    assert.equal(await staff.page.getByRole('link', { name: 'Thêm cây trồng, vật nuôi' }).count(), 0);
    assert.ok((await sidewaysOverflow(staff.page)) <= 0, 'fits the phone');
    await staff.screenshot('03-empty-crops-phone-vi-staff');
    await assertAccessible(staff.page);
  });

  it('owner keeps the records: adds a group, a variety and crops, edits, filters, searches and deletes', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/crops/categories');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { name: 'Product groups', level: 2, exact: true }).waitFor();

    // A product group.
    await page.getByRole('link', { name: 'Add product group' }).first().click();
    await waitForFocus(page, 'h1', 'Add product group');
    await page.getByLabel('Name').fill('Fruit trees');
    await page.getByLabel('Code', { exact: true }).fill('FRUIT');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await announced(page, 'Fruit trees added.');
    await waitForFocus(page, 'h1', 'Crops');
    assert.deepEqual(await listedNames(page), ['Fruit trees']);

    // A variety with a picture kept on the farm app's own address: shown.
    await page
      .getByRole('navigation', { name: 'Crop records' })
      .getByRole('link', { name: 'Varieties' })
      .click();
    await page.getByRole('link', { name: 'Add variety' }).first().click();
    await waitForFocus(page, 'h1', 'Add variety');
    await page.getByLabel('Name').fill('Cat Chu mango');
    await page.getByLabel('Picture address').fill('/manage/favicon.svg');
    await page.getByLabel('Notes').fill('Sweet, thin-skinned mango from Dong Thap.');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await announced(page, 'Cat Chu mango added.');
    await waitForFocus(page, 'h1', 'Crops');
    const typePicture = page.getByRole('img', { name: 'Picture of Cat Chu mango' });
    await typePicture.waitFor();
    await until(async () =>
      typePicture.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
    );

    // A crop with a picture on another website: the app's policy does not load it; it is a link.
    await page
      .getByRole('navigation', { name: 'Crop records' })
      .getByRole('link', { name: 'Crops & livestock' })
      .click();
    await page.getByRole('link', { name: 'Add crop or livestock' }).first().click();
    await waitForFocus(page, 'h1', 'Add crop or livestock');
    await page.getByLabel('Name').fill('Mango orchard A');
    await page.getByLabel('Product group').selectOption({ label: 'Fruit trees' });
    await page.getByLabel('Variety').selectOption({ label: 'Cat Chu mango' });
    await page.getByLabel('Picture address').fill('https://example.com/pictures/mango.jpg');
    await page.getByLabel('Price').fill('25000');
    await screenshot('04-add-crop-desktop-en');
    await assertAccessible(page);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await announced(page, 'Mango orchard A added.');
    await waitForFocus(page, 'h1', 'Crops');
    const link = page.getByRole('link', { name: 'Picture kept on example.com (Mango orchard A)' });
    assert.equal(await link.getAttribute('href'), 'https://example.com/pictures/mango.jpg');
    assert.equal(await page.locator('img[src^="https://example.com"]').count(), 0, 'never asked for');

    // A second one, through the API, with the app's own picture.
    const token = await loginToken(suite.t.url, suite.farm.code, suite.farm.owner);
    const added = await request(suite.t.url, 'POST', '/api/crop/crop', {
      token,
      json: { name: 'Ri chickens', image: '/manage/favicon.svg', price: 120000, status: 1 },
    });
    assert.equal(added.status, 201, added.text);
    // A variety whose picture cannot be read (shown on the Vietnamese list below).
    const broken = await request(suite.t.url, 'POST', '/api/croptype/croptype', {
      token,
      json: { name: 'Broken picture', images: 'data:image/png;base64,AAAA' },
    });
    assert.equal(broken.status, 201, broken.text);
    await page.reload();
    await page.getByRole('img', { name: 'Picture of Ri chickens' }).waitFor();
    const row = page.getByRole('row', { name: /Mango orchard A/ });
    assert.match((await row.textContent()) ?? '', /Fruit trees.*Cat Chu mango.*25,000.*Active/);
    await screenshot('05-crops-desktop-en');
    await assertAccessible(page);

    // Edit: made inactive, and the name emptied by mistake: the API's reason sits under the name.
    await page.getByRole('link', { name: 'Edit Mango orchard A' }).click();
    await waitForFocus(page, 'h1', 'Edit crop or livestock');
    assert.equal(
      await page.getByLabel('Picture address').inputValue(),
      'https://example.com/pictures/mango.jpg',
    );
    await page.getByLabel('Active (in use on the farm)').uncheck();
    await page.getByLabel('Name').fill('');
    await page.getByLabel('Price').fill('26000');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#crop-name-error').filter({ hasText: 'Fill this in.' }).waitFor();
    await waitForFocus(page, 'input', '');
    assert.equal(
      await page.evaluate('document.activeElement.id'),
      'crop-name',
      'the focus is on the field to fix',
    );
    assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Price').inputValue(), '26000', 'what was typed is kept');
    assert.equal(await page.getByLabel('Active (in use on the farm)').isChecked(), false);
    await page.getByText('Please correct the highlighted fields.').waitFor();
    await screenshot('06-field-error-desktop-en');
    await assertAccessible(page);
    await page.getByLabel('Name').fill('Mango orchard A');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await announced(page, 'Changes to Mango orchard A saved.');
    await waitForFocus(page, 'h1', 'Crops');
    await until(async () => /26,000.*Inactive/.test((await row.textContent()) ?? ''));

    // The active/inactive filter and the search by name, both asked of the API.
    await page.getByLabel('Show').selectOption('inactive');
    await listed(page, ['Mango orchard A']);
    await page.getByLabel('Show').selectOption('active');
    await page.getByRole('row', { name: /Ri chickens/ }).waitFor();
    await listed(page, ['Ri chickens']);
    await page.getByLabel('Show').selectOption('all');
    await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Fruit trees' });
    await listed(page, ['Mango orchard A']);
    await page.getByLabel('Group', { exact: true }).selectOption({ label: 'All groups' });
    await listed(page, ['Ri chickens', 'Mango orchard A']);
    await page.getByLabel('Search by name').fill('mango');
    await listed(page, ['Mango orchard A']);
    await page.getByLabel('Search by name').fill('zzz');
    await page.getByText('Nothing matches “zzz”.').waitFor();
    await assertAccessible(page);
    await page.getByLabel('Search by name').fill('');
    await listed(page, ['Ri chickens', 'Mango orchard A']);

    // Delete, confirmed: the dialog starts on Cancel; afterwards the result is said and the focus
    // goes to the heading (the row and its button are gone).
    await page.getByRole('button', { name: 'Delete Ri chickens' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Ri chickens?' });
    await dialog.waitFor();
    await waitForFocus(page, 'button', 'Cancel');
    await screenshot('07-delete-desktop-en', { fullPage: false });
    await assertAccessible(page);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await announced(page, 'Ri chickens deleted.');
    await waitForFocus(page, 'h1', 'Crops');
    await listed(page, ['Mango orchard A']);
    const gone = await request(suite.t.url, 'GET', `/api/crop/crop/${added.body[0].id}`, { token });
    assert.equal(gone.status, 404);
    await assertAccessible(page);

    // The same lists in Vietnamese at desktop width.
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('heading', { level: 1, name: 'Cây trồng' }).waitFor();
    await page
      .getByRole('row', { name: /Mango orchard A/ })
      .getByText('Ngừng dùng')
      .waitFor();
    await screenshot('08-crops-desktop-vi');
    await assertAccessible(page);
    await page
      .getByRole('navigation', { name: 'Hồ sơ cây trồng' })
      .getByRole('link', { name: 'Giống' })
      .click();
    await page.getByRole('img', { name: 'Ảnh Cat Chu mango' }).waitFor();
    await page
      .getByRole('row', { name: /Broken picture/ })
      .getByText('Không hiển thị được ảnh')
      .waitFor();
    assert.equal(await page.getByRole('img', { name: 'Ảnh Broken picture' }).count(), 0);
    await screenshot('09-types-desktop-vi');
    await assertAccessible(page);
    // A variety's delete says what becomes of the crops that use it.
    await page.getByRole('button', { name: 'Xóa Broken picture' }).click();
    const ask = page.getByRole('dialog', { name: 'Xóa Broken picture?' });
    await ask.getByText('các cây trồng, vật nuôi đang dùng mục này sẽ hiện là “Chưa chọn”').waitFor();
    await waitForFocus(page, 'button', 'Hủy');
    await assertAccessible(page);
    await ask.getByRole('button', { name: 'Xóa' }).click();
    await announced(page, 'Đã xóa Broken picture.');
    await waitForFocus(page, 'h1', 'Cây trồng');
    await listed(page, ['Cat Chu mango']);
    await page.getByLabel('Ngôn ngữ').selectOption('en');
  });

  it('phone: the lists become cards that fit, in English; the form fits too', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/crops');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('row', { name: /Mango orchard A/ }).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0, 'crops fit the phone');
    await screenshot('10-crops-phone-en');
    await assertAccessible(page);
    const edit = page.getByRole('link', { name: 'Edit Mango orchard A' });
    const box = await edit.boundingBox();
    assert.ok(box && box.height >= 44, `touch target ${box?.height}px`);
    await edit.click();
    await waitForFocus(page, 'h1', 'Edit crop or livestock');
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the form fits the phone');
    // A price that is not a whole number is caught before saving, next to the price.
    await page.getByLabel('Price').fill('2.5');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#crop-price-error').filter({ hasText: 'Use a whole number of 0 or more' }).waitFor();
    await until(async () => (await page.evaluate('document.activeElement.id')) === 'crop-price');
    assert.equal(await page.getByLabel('Price').inputValue(), '2.5');
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the form with an error fits the phone');
    await screenshot('11-edit-phone-en');
    await assertAccessible(page);
    await page.goto('/manage/crops/categories');
    await page.getByRole('row', { name: /Fruit trees/ }).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0, 'groups fit the phone');
    await screenshot('12-groups-phone-en');
  });

  it('staff read every list on a phone in Vietnamese and are offered no change', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/crops');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.staff, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Cây trồng' }).waitFor();
    await page.getByRole('row', { name: /Mango orchard A/ }).waitFor();
    await page.getByText('Bạn có thể xem các hồ sơ này; chỉ chủ trang trại mới thay đổi được.').waitFor();
    const noChanges = async () => {
      assert.equal(await page.getByRole('link', { name: /^(Thêm|Sửa)/ }).count(), 0, 'no add or edit');
      assert.equal(await page.getByRole('button', { name: /^Xóa/ }).count(), 0, 'no delete');
    };
    await noChanges();
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await screenshot('13-crops-phone-vi-staff');
    await assertAccessible(page);

    const tabs = page.getByRole('navigation', { name: 'Hồ sơ cây trồng' });
    await tabs.getByRole('link', { name: 'Giống' }).click();
    await page.getByRole('row', { name: /Cat Chu mango/ }).waitFor();
    await noChanges();
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await screenshot('14-types-phone-vi-staff');
    await assertAccessible(page);

    await tabs.getByRole('link', { name: 'Nhóm sản phẩm' }).click();
    await page.getByRole('row', { name: /Fruit trees/ }).waitFor();
    await noChanges();
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await screenshot('15-groups-phone-vi-staff');
    await assertAccessible(page);

    // A form's address typed by hand: no form, only the notice (the API refuses anyway).
    await page.goto('/manage/crops/new');
    await page.getByRole('heading', { level: 1, name: 'Thêm cây trồng, vật nuôi' }).waitFor();
    assert.equal(await page.locator('form.record-form').count(), 0);
  });
});
