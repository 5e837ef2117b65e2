// The farm app's Today page (/manage/) in a real headless Chromium against a real Furrow: the
// owner's morning check on a phone (every group with its count, acknowledging an alert, a new alert
// showing up without a reload, confirming a harvest), a staff member's page (own tasks only, no
// webhooks, no owner action), and Vietnamese at phone and desktop width. The farm is seeded
// through the API with the owner's and the staff member's tokens. Screenshots under
// test-output/today/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { sweepOfflineDevices } from '../../src/modules/iot/offline-sweeper.js';
import { findEndpoint, updateEndpoint } from '../../src/modules/webhooks/webhook.repository.js';
import { client } from '../support/app.js';
import {
  assertAccessible,
  sidewaysOverflow,
  signIn,
  TEST_OUTPUT_DIR,
  useScreenSuite,
  waitForFocus,
} from '../support/browser.js';
import { loginToken, makeTenant } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'today');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

type Client = ReturnType<typeof client>;

/** A diary time, UTC: "2026-11-24 08:00:00". */
const diaryTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** The number shown next to a group's heading. */
async function groupCount(page: Page, title: string | RegExp): Promise<string> {
  const heading = page.locator('.today-group h2').filter({ hasText: title });
  return (await heading.locator('.today-count').innerText()).trim();
}

async function waitForCount(page: Page, title: string | RegExp, count: string, timeout = 25_000) {
  await page
    .locator('.today-group h2')
    .filter({ hasText: title })
    .locator('.today-count', { hasText: new RegExp(`^${count}$`) })
    .waitFor({ timeout });
}

describe('Today page [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;
  let owner: Client;
  let staffId: number;
  let pausedId = '';

  const made = async (c: Client, path: string, json: Record<string, unknown>): Promise<number> => {
    const res = await c.post(path, { json });
    assert.equal(res.status, 201, `${path}: ${res.text}`);
    return Array.isArray(res.body) ? res.body[0].id : res.body.data.id;
  };
  const reading = async (device_code: string, metric: string, value: number) => {
    const res = await owner.post('/api/iot/readings', {
      json: { readings: [{ device_code, metric, value }] },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data.results[0].alert_ids as number[];
  };

  before(async () => {
    const { t, farm } = suite;
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    const staff = client(t.url, await loginToken(t.url, farm.code, suite.staff));
    const me = await staff.put('/api/account', { json: { name: 'Binh Nguyen' } });
    assert.equal(me.status, 200, me.text);
    staffId = me.body.data.id;

    const farmId = await made(owner, '/api/farms', { name: 'Green Valley' });
    const block = await made(owner, '/api/blocks', { name: 'East block', farm_id: farmId });
    const zone = await made(owner, '/api/zones', { name: 'Greenhouse 1', farm_id: farmId });
    const parcel = await made(owner, '/api/parcels', {
      name: 'North field',
      farm_id: farmId,
      block_id: block,
      zone_id: zone,
    });
    const tomatoes = await made(owner, '/api/croptype/croptype', { name: 'Tomatoes' });
    const lettuce = await made(owner, '/api/croptype/croptype', { name: 'Lettuce' });

    // Sensors: one raising alerts, one gone quiet, one never heard from.
    const thermometer = await made(owner, '/api/iot/devices', {
      code: 'gh1-climate',
      name: 'Greenhouse 1 climate',
      zone_id: zone,
    });
    await made(owner, '/api/iot/devices', {
      code: 'pump-2',
      name: 'Pump house',
      zone_id: zone,
      heartbeat_timeout_seconds: 60,
    });
    await made(owner, '/api/iot/devices', { code: 'soil-7', name: 'Soil probe, North field', zone_id: zone });
    await made(owner, '/api/iot/rules', {
      metric: 'temperature',
      operator: 'gt',
      threshold: 32,
      device_id: thermometer,
      severity: 'warning',
    });
    await made(owner, '/api/iot/rules', {
      metric: 'humidity',
      operator: 'gt',
      threshold: 90,
      device_id: thermometer,
      severity: 'critical',
    });
    // A second, higher limit: a rule has one active alert per device, so a new temperature alert
    // while the first is still active comes from this one.
    await made(owner, '/api/iot/rules', {
      metric: 'temperature',
      operator: 'gt',
      threshold: 36,
      device_id: thermometer,
      severity: 'warning',
    });
    assert.equal((await reading('gh1-climate', 'temperature', 35.5)).length, 1);
    assert.equal((await reading('gh1-climate', 'humidity', 94)).length, 1);
    // The pump house reports once, then falls silent past its 60 s: the offline sweeper marks it.
    await reading('pump-2', 'water_level', 1.2);
    t.clock.advance(120_000);
    try {
      assert.equal(await sweepOfflineDevices({ clock: t.clock, db: t.database.db }), 1);
    } finally {
      t.clock.advance(-120_000);
    }
    // The thermometer keeps reporting: it stays online (its last reading is after the sweep).
    await reading('gh1-climate', 'temperature', 35.8);

    // Diary tasks: two of the staff member's (overdue and today), one of the owner's, one nobody's.
    const now = t.clock.now();
    const task = (name: string, start: number, end: number, assigned_to?: number) =>
      made(owner, '/api/diary/production', {
        name,
        start: diaryTime(start),
        end: diaryTime(end),
        ...(assigned_to === undefined ? {} : { assigned_to }),
      });
    const hour = 3_600_000;
    await task('Water the tomato seedlings', now - hour, now + 2 * hour, staffId);
    await task('Check the drip lines in North field', now - 26 * hour, now - 3 * hour, staffId);
    await task('Order fertiliser', now - 30 * 60_000, now + 4 * hour, farm.owner.id);
    await task('Repair the greenhouse door', now - 50 * hour, now - 5 * hour);

    // Harvests declared by the staff member, waiting for the owner.
    await made(staff, '/api/harvest/batches', {
      parcel_id: parcel,
      crop_type_id: tomatoes,
      quantity_kg: 120.5,
    });
    await made(staff, '/api/harvest/batches', { parcel_id: parcel, crop_type_id: lettuce, quantity_kg: 42 });

    // A webhook paused after failures.
    const endpoint = await owner.post('/api/webhooks', {
      json: {
        url: 'https://93.184.215.14/farm-events',
        events: ['harvest.batch.created'],
        description: 'Packing house stock system',
      },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    const scope = { db: t.database.db, tenantId: farm.id };
    pausedId = endpoint.body.data.id;
    const row = await findEndpoint(scope, pausedId);
    assert.ok(row);
    await updateEndpoint(scope, row.id, {
      status: 'paused',
      paused_reason: '5 consecutive deliveries failed every attempt',
    });
  });

  it('owner on a phone: every group with its count; acknowledge an alert; a new one shows up without a reload; confirm a harvest', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
    await waitForFocus(page, 'h1', 'Today');
    await page.getByRole('heading', { level: 2, name: /^Alerts/ }).waitFor();

    assert.equal(await groupCount(page, 'Alerts'), '2');
    assert.equal(await groupCount(page, 'Sensors offline'), '2');
    assert.equal(await groupCount(page, 'Tasks'), '4');
    assert.equal(await groupCount(page, 'Harvests to confirm'), '2');
    assert.equal(await groupCount(page, 'Paused webhooks'), '1');
    const main = page.locator('main');
    await main.getByText('2 overdue, 2 for today').waitFor();
    // Tasks by person: you first, then the others by name, then what nobody has been given.
    assert.deepEqual(
      (await page.locator('.today-tasks h3').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim()),
      ['You 1', 'Binh Nguyen 2', 'Not assigned 1'],
    );
    await main.getByText('Humidity: 94').waitFor();
    await main.getByText('(alert above 90)').waitFor();
    await main.getByText('Never heard from yet').waitFor();
    await main.getByText('Paused after 5 deliveries in a row failed every attempt.').waitFor();
    assert.equal(
      await page
        .getByRole('link', { name: 'Open the webhook https://93.184.215.14/farm-events' })
        .getAttribute('href'),
      `/manage/webhooks/${pausedId}`,
    );
    for (const [name, href] of [
      ['All alerts in Sensors', '/manage/sensors'],
      ['Open the diary', '/manage/diary'],
      ['Open Harvests', '/manage/harvests'],
    ]) {
      assert.equal(await main.getByRole('link', { name }).getAttribute('href'), href);
    }
    assert.ok((await sidewaysOverflow(page)) <= 0, 'fits the phone');
    await screenshot('01-owner-phone-en');
    await assertAccessible(page);

    // Acknowledge the newest alert: it leaves the list, the count drops, the focus goes to the next.
    await page.evaluate('window.__stillHere = true');
    await page.getByRole('button', { name: 'Acknowledge: Humidity on Greenhouse 1 climate' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Alert acknowledged: Humidity on Greenhouse 1 climate.' })
      .waitFor();
    await waitForCount(page, 'Alerts', '1');
    await waitForFocus(page, 'button', 'Acknowledge');
    assert.equal(
      await page.evaluate('document.activeElement.getAttribute("aria-label")'),
      'Acknowledge: Temperature on Greenhouse 1 climate',
    );
    await main.getByText('1 acknowledged alert is still active.').waitFor();
    assert.equal(await main.getByText('Humidity: 94').count(), 0, 'the acknowledged alert left the list');
    await screenshot('02-acknowledged-phone-en');
    await assertAccessible(page);

    // A new alert raised through the API (the higher limit) shows up by itself.
    assert.equal((await reading('gh1-climate', 'temperature', 36.2)).length, 1);
    await waitForCount(page, 'Alerts', '2');
    await main.getByText('Temperature: 36.2').waitFor();
    assert.equal(await page.evaluate('window.__stillHere'), true, 'no reload');

    // Confirm a harvest: asked first, then the batch leaves the list and the focus is on the group.
    await page.getByRole('button', { name: 'Confirm 120.5 kg of Tomatoes from North field' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm this harvest?' });
    await dialog.waitFor();
    await screenshot('03-confirm-harvest-phone-en', { fullPage: false });
    await assertAccessible(page);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Harvest of 120.5 kg of Tomatoes confirmed.' })
      .waitFor();
    await waitForCount(page, 'Harvests to confirm', '1');
    await waitForFocus(page, 'h2', /^Harvests to confirm/);
    const batches = (await owner.get('/api/harvest/batches?status=confirmed')).body;
    assert.equal(batches.length, 1);
    assert.equal(batches[0].quantity_kg, 120.5);
    await assertAccessible(page);
  });

  it('owner on a desktop: the groups side by side (the picture of the README, docs/today.png)', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 2, name: /^Alerts/ }).waitFor();
    await waitForFocus(page, 'h1', 'Today');
    assert.equal(await groupCount(page, 'Alerts'), '2');
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await screenshot('04-owner-desktop-en', { fullPage: false });
    await assertAccessible(page);
  });

  it('staff member: only their own tasks, no webhooks, no confirm button', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/');
    await signIn(page, suite.farm.code, suite.staff);
    await page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
    await page.getByRole('heading', { level: 2, name: /^Your tasks/ }).waitFor();
    assert.equal(await groupCount(page, 'Your tasks'), '2');
    const main = page.locator('main');
    await main.getByText('Water the tomato seedlings').waitFor();
    await main.getByText('Check the drip lines in North field').waitFor();
    assert.equal(await main.getByText('Order fertiliser').count(), 0);
    assert.equal(await main.getByText('Repair the greenhouse door').count(), 0);
    assert.equal(await page.locator('.today-webhooks').count(), 0, 'no webhook group');
    assert.equal(await main.getByRole('button', { name: /^Confirm/ }).count(), 0, 'no owner action');
    await main.getByText('Waiting for the owner to confirm.').first().waitFor();
    // Staff acknowledge alerts too.
    assert.ok((await main.getByRole('button', { name: /^Acknowledge/ }).count()) > 0);
    await screenshot('05-staff-desktop-en');
    await assertAccessible(page);
  });

  it('speaks Vietnamese at phone and desktop width', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.farm.owner, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Hôm nay' }).waitFor();
    await page.getByRole('heading', { level: 2, name: /^Cảnh báo/ }).waitFor();
    const main = page.locator('main');
    for (const title of [
      'Cảm biến mất kết nối',
      'Công việc',
      'Thu hoạch chờ xác nhận',
      'Webhook đang tạm dừng',
    ]) {
      await page.getByRole('heading', { level: 2, name: new RegExp(`^${title}`) }).waitFor();
    }
    await main.getByText('Chưa nhận được tín hiệu nào').waitFor();
    await main.getByText('(cảnh báo khi trên 32)').first().waitFor();
    await main.getByText(/quá hạn, .* trong hôm nay/).waitFor();
    assert.equal((await main.getByRole('button', { name: /^Đã biết: Nhiệt độ ở/ }).count()) > 0, true);
    assert.ok((await sidewaysOverflow(page)) <= 0, 'fits the phone');
    await screenshot('06-owner-phone-vi');
    await assertAccessible(page);

    await page.setViewportSize(DESKTOP);
    await page.getByRole('heading', { level: 2, name: /^Cảnh báo/ }).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await screenshot('07-owner-desktop-vi');
    await assertAccessible(page);
  });

  it('a farm with nothing to do says all is well', async () => {
    const quiet = await makeTenant(suite.t.database.db);
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/');
    await signIn(page, quiet.code, quiet.owner);
    await page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'All is well' }).waitFor();
    await page.getByText('No alerts. Every sensor is within its limits.').waitFor();
    assert.equal(await groupCount(page, 'Alerts'), '0');
    assert.equal(await page.locator('.today-summary').count(), 0);
    await screenshot('08-all-well-phone-en');
    await assertAccessible(page);
  });

  it('an expired session on Today goes back to sign-in, ready to sign in again', async () => {
    const { page } = await screen({ viewport: PHONE });
    await page.goto('/manage/');
    await signIn(page, suite.farm.code, suite.staff);
    await page.getByRole('heading', { level: 2, name: /^Your tasks/ }).waitFor();
    suite.t.clock.advance(36_001 * 1000); // past TOKEN_TTL_SECONDS
    try {
      // Several calls are refused at once (the session check, the page, the account's language).
      await page.reload();
      await page.getByText('Your session has expired. Please sign in again.').waitFor();
      assert.equal(await page.getByLabel('Farm code').inputValue(), suite.farm.code);
      assert.equal(await page.getByLabel('Username').inputValue(), suite.staff.username);
    } finally {
      suite.t.clock.advance(-36_001 * 1000);
    }
  });
});
