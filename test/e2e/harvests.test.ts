// The farm app's Harvests section (/manage/harvests) in a real headless Chromium against a real
// Furrow: staff record batches on a phone (Vietnamese and English), refused weights are said next
// to the field, the owner confirms at a desktop (focus and announcement checked) and the totals by
// crop and by parcel follow for the chosen period. Staff are never offered Confirm. Every state is
// checked with axe; screenshots under test-output/harvests/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
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

const OUTPUT = join(TEST_OUTPUT_DIR, 'harvests');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** The totals card ("By crop", "By parcel") as a map of name to its weight cell's text. */
async function totals(page: Page, title: string): Promise<Record<string, string>> {
  const card = page.getByRole('region', { name: title });
  const rows = card.locator('tbody tr');
  const result: Record<string, string> = {};
  for (let i = 0; i < (await rows.count()); i++) {
    const name = (await rows.nth(i).locator('th').textContent()) ?? '';
    result[name] = (await rows.nth(i).locator('td').first().textContent()) ?? '';
  }
  return result;
}

async function waitForTotals(page: Page, title: string, expected: Record<string, string>) {
  const deadline = Date.now() + 20_000;
  let seen: Record<string, string> = {};
  while (Date.now() < deadline) {
    seen = await totals(page, title);
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    await page.waitForTimeout(200);
  }
  assert.deepEqual(seen, expected, `totals ${title}`);
}

describe('Harvests section [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;
  let owner: ReturnType<typeof client>;
  let eastId: number;
  let dragonFruitId: number;

  before(async () => {
    owner = client(suite.t.url, await loginToken(suite.t.url, suite.farm.code, suite.farm.owner));
    const farm = (await owner.post('/api/farms', { json: { name: 'River farm' } })).body[0];
    eastId = (
      await owner.post('/api/parcels', { json: { name: 'East field', code: 'E1', farm_id: farm.id } })
    ).body[0].id;
    const westId = (
      await owner.post('/api/parcels', { json: { name: 'West field', code: 'W2', farm_id: farm.id } })
    ).body[0].id;
    dragonFruitId = (await owner.post('/api/croptype/croptype', { json: { name: 'Dragon fruit' } })).body[0]
      .id;
    const pepperId = (await owner.post('/api/croptype/croptype', { json: { name: 'Black pepper' } })).body[0]
      .id;
    // Last year's harvest, confirmed: outside the default period, inside a chosen one.
    const old = await owner.post('/api/harvest/batches', {
      json: {
        parcel_id: westId,
        crop_type_id: pepperId,
        quantity_kg: 300,
        harvested_at: '2025-06-10 02:00:00',
      },
    });
    assert.equal(old.status, 201, old.text);
    assert.equal((await owner.post(`/api/harvest/batches/${old.body[0].id}/confirm`)).status, 200);
  });

  it('staff on a phone record a batch in Vietnamese, after a refused weight, and are offered no Confirm', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/harvests');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.staff, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Thu hoạch' }).waitFor();
    await page
      .getByRole('row', { name: /Black pepper/ })
      .getByText('Đã xác nhận')
      .waitFor();
    assert.equal(
      await page.getByRole('button', { name: /Xác nhận/ }).count(),
      0,
      'staff are offered no Confirm',
    );
    await assertFits(page);
    await screenshot('01-staff-list-phone-vi');
    await assertAccessible(page);

    await page.getByRole('link', { name: 'Ghi lô thu hoạch' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Ghi lô thu hoạch' }).waitFor();
    await waitForFocus(page, 'h1', 'Ghi lô thu hoạch');
    await page.getByLabel('Lô đất').selectOption({ label: 'East field (E1)' });
    await page.getByLabel('Loại cây').selectOption({ label: 'Dragon fruit' });

    // Nothing typed: the API says the weight is missing, next to the field.
    await page.getByRole('button', { name: 'Ghi lô thu hoạch' }).click();
    const weightError = page.locator('#harvest-kg-error');
    await weightError.waitFor();
    assert.equal(await weightError.textContent(), 'Vui lòng điền mục này.');
    await waitForFocusedId(page, 'harvest-kg');

    // A negative weight: refused, in plain words, and what was typed stays.
    await page.getByLabel('Khối lượng (kg)').fill('-3');
    await page.getByRole('button', { name: 'Ghi lô thu hoạch' }).click();
    await weightError.filter({ hasText: 'Hãy nhập khối lượng lớn hơn 0 kg.' }).waitFor();
    assert.equal(await page.getByLabel('Khối lượng (kg)').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Khối lượng (kg)').inputValue(), '-3');
    assert.equal(await page.getByLabel('Lô đất').inputValue(), String(eastId));
    await waitForFocusedId(page, 'harvest-kg');
    await assertFits(page);
    await screenshot('02-weight-refused-phone-vi');
    await assertAccessible(page);

    await page.getByLabel('Khối lượng (kg)').fill('12,5');
    await page.getByLabel('Ghi chú (không bắt buộc)').fill('Hàng loại 1');
    await page.getByRole('button', { name: 'Ghi lô thu hoạch' }).click();
    await page
      .getByRole('status')
      .filter({
        hasText: 'Đã ghi: 12,5 kg Dragon fruit từ East field. Lô hàng đang chờ chủ trang trại xác nhận.',
      })
      .waitFor();
    await waitForFocus(page, 'h1', 'Thu hoạch');
    const row = page.getByRole('row', { name: /Dragon fruit/ });
    await row.getByText('Chờ xác nhận').waitFor();
    await row.getByText('12,5 kg').waitFor();
    assert.equal(await page.getByRole('button', { name: /Xác nhận/ }).count(), 0);
    const batches = (await owner.get('/api/harvest/batches?status=declared')).body;
    assert.equal(batches.length, 1);
    assert.equal(batches[0].quantity_kg, 12.5);
    assert.equal(batches[0].parcel_id, eastId);
    assert.equal(batches[0].crop_type_id, dragonFruitId);
    assert.equal(batches[0].notes, 'Hàng loại 1');
    await assertFits(page);
    await screenshot('03-recorded-phone-vi');
    await assertAccessible(page);

    // In English too: a second batch, from the other parcel.
    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Harvests' }).waitFor();
    await row.getByText('Waiting for confirmation').waitFor();
    await page.getByRole('link', { name: 'Record a harvest' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Record a harvest' }).waitFor();
    await page.getByLabel('Parcel').selectOption({ label: 'West field (W2)' });
    await page.getByLabel('Crop').selectOption({ label: 'Dragon fruit' });
    await page.getByLabel('Weight in kilograms').fill('about 40');
    await page.getByRole('button', { name: 'Record harvest' }).click();
    await page
      .locator('#harvest-kg-error')
      .filter({ hasText: 'Enter the weight as a number, for example 12.5.' })
      .waitFor();
    await page.getByLabel('Weight in kilograms').fill('0');
    await page.getByRole('button', { name: 'Record harvest' }).click();
    await page
      .locator('#harvest-kg-error')
      .filter({ hasText: 'Enter a weight of more than 0 kg.' })
      .waitFor();
    await assertFits(page);
    await screenshot('04-weight-refused-phone-en');
    await assertAccessible(page);
    await page.getByLabel('Weight in kilograms').fill('40');
    await page.getByRole('button', { name: 'Record harvest' }).click();
    await page
      .getByRole('status')
      .filter({
        hasText:
          'Harvest recorded: 40 kg of Dragon fruit from West field. It waits for the owner to confirm it.',
      })
      .waitFor();
    await waitForFocus(page, 'h1', 'Harvests');
    await page.getByRole('row', { name: /40 kg/ }).getByText('Waiting for confirmation').waitFor();
    assert.equal(
      await page.getByRole('button', { name: /Confirm/ }).count(),
      0,
      'staff are offered no Confirm',
    );
    await assertFits(page);
    await screenshot('05-list-phone-en');
    await assertAccessible(page);
  });

  it('the owner at a desktop confirms a batch: said what it does, announced, focus on the batch; totals follow the period', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/harvests');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Harvests' }).waitFor();
    // Last 30 days: nothing confirmed yet.
    await page
      .getByRole('region', { name: 'By crop' })
      .getByText('No confirmed harvest in this period.')
      .waitFor();
    await page
      .getByRole('region', { name: 'By parcel' })
      .getByText('No confirmed harvest in this period.')
      .waitFor();
    await screenshot('10-owner-desktop-en');
    await assertAccessible(page);

    const confirm = page.getByRole('button', { name: 'Confirm 12.5 kg of Dragon fruit from East field' });
    await confirm.click();
    const dialog = page.getByRole('dialog', { name: 'Confirm this harvest?' });
    await dialog.getByText(/^12\.5 kg of Dragon fruit from East field, harvested /).waitFor();
    await dialog.getByText(/counts in the harvest totals, and Furrow tells the systems connected/).waitFor();
    await waitForFocus(page, 'button', 'Cancel'); // the safe choice first
    await screenshot('11-confirm-dialog-desktop-en', { fullPage: false });
    await assertAccessible(page);
    await dialog.getByRole('button', { name: 'Confirm harvest' }).click();
    await page
      .getByRole('status')
      .filter({
        hasText: 'Harvest confirmed: 12.5 kg of Dragon fruit from East field. It now counts in the totals.',
      })
      .waitFor();
    await waitForFocus(page, 'th', /^Dragon fruit/);
    const row = page.getByRole('row', { name: /Dragon fruit.*12\.5 kg/ });
    await row.getByText('Confirmed', { exact: true }).waitFor();
    assert.equal(await row.getByRole('button').count(), 0, 'a confirmed batch offers no Confirm');
    const [confirmed] = (await owner.get('/api/harvest/batches?status=confirmed')).body.filter(
      (b: { quantity_kg: number }) => b.quantity_kg === 12.5,
    );
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.confirmed_by, suite.farm.owner.id);

    await waitForTotals(page, 'By crop', { 'Dragon fruit': '12.5 kg' });
    await waitForTotals(page, 'By parcel', { 'East field': '12.5 kg' });
    await screenshot('12-confirmed-desktop-en');
    await assertAccessible(page);

    // Another period: last year's harvest, not this one.
    await page.getByLabel('Period').selectOption({ label: 'Choose dates' });
    await page.getByLabel('From', { exact: true }).fill('2025-06-01');
    await page.getByLabel('To', { exact: true }).fill('2025-06-30');
    await waitForTotals(page, 'By crop', { 'Black pepper': '300 kg' });
    await waitForTotals(page, 'By parcel', { 'West field': '300 kg' });
    await page.getByLabel('Period').selectOption({ label: 'All time' });
    await waitForTotals(page, 'By crop', { 'Black pepper': '300 kg', 'Dragon fruit': '12.5 kg' });
    await waitForTotals(page, 'By parcel', { 'West field': '300 kg', 'East field': '12.5 kg' });
    await page.getByText('Total: 312.5 kg').first().waitFor();
    await screenshot('13-totals-all-time-desktop-en');
    await assertAccessible(page);

    // Only what waits.
    await page.getByRole('radio', { name: 'Waiting', exact: true }).check();
    const batchRows = page.locator('table.batches tbody tr');
    await batchRows.filter({ hasText: '40 kg' }).waitFor();
    await batchRows.filter({ hasText: '12.5 kg' }).waitFor({ state: 'detached' });
    assert.equal(await batchRows.count(), 1, 'only the batch that waits');

    // Vietnamese at the desktop.
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('heading', { level: 1, name: 'Thu hoạch' }).waitFor();
    await page.getByRole('radio', { name: 'Tất cả' }).check();
    await page
      .getByRole('row', { name: /12,5 kg/ })
      .getByText('Đã xác nhận', { exact: true })
      .waitFor();
    await page.getByRole('region', { name: 'Theo loại cây' }).getByText('Tổng: 312,5 kg').waitFor();
    await page.getByRole('region', { name: 'Theo lô đất' }).getByText('Tổng: 312,5 kg').waitFor();
    await screenshot('14-owner-desktop-vi');
    await assertAccessible(page);

    // The owner at phone width: batches as cards, Confirm within reach.
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Xác nhận 40 kg Dragon fruit từ West field' }).waitFor();
    await assertFits(page);
    await screenshot('15-owner-phone-vi');
    await assertAccessible(page);
  });

  it('says when the batches cannot be loaded, with "Try again"', async () => {
    const { page, screenshot, problems } = await screen({ viewport: PHONE });
    await page.goto('/manage/harvests');
    await signIn(page, suite.farm.code, suite.staff);
    await page.getByRole('heading', { level: 1, name: 'Harvests' }).waitFor();
    const batchList = (url: URL) => url.pathname === '/api/harvest/batches';
    await page.route(batchList, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify([
          { meta: { status_code: 503, message: 'Furrow is busy; try again shortly' }, data: [] },
        ]),
      }),
    );
    await page.reload();
    const failed = page.getByRole('alert').filter({ hasText: 'Furrow is busy; try again shortly' });
    await failed.waitFor();
    await assertFits(page);
    await screenshot('20-error-phone-en');
    await assertAccessible(page);
    await page.unroute(batchList);
    await failed.getByRole('button', { name: 'Try again' }).click();
    await page.locator('table.batches tbody tr').filter({ hasText: '12.5 kg' }).waitFor();
    problems.splice(0, problems.length, ...problems.filter((p) => !/status of 503/.test(p)));
  });
});
