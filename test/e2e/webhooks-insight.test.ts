// The farm app's Webhooks insight in a real headless Chromium against a real Furrow app serving the
// built web/dist, a real HTTPS receiver and a real delivery worker: the delivery log's filters, an
// endpoint's stats, the list's last day, and the event catalogue, in English and Vietnamese, at
// desktop and phone width. Screenshots go to test-output/webhooks-insight/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { emitEvent } from '../../src/modules/webhooks/outbox.js';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/worker.js';
import { ManualClock } from '../../src/platform/clock.js';
import { request, startTestApp, type TestApp } from '../support/app.js';
import {
  accessibilityViolations,
  assertFits,
  ensureWebBuilt,
  launchBrowser,
  openScreen,
  type ScreenPage,
  signIn,
  TEST_OUTPUT_DIR,
} from '../support/browser.js';
import { TestDatabase } from '../support/databases.js';
import { loginToken, makeTenant, type TestTenant } from '../support/factories.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'webhooks-insight');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const DAY_MS = 86_400_000;
const TIME_ZONE = 'Asia/Ho_Chi_Minh'; // the browser's, as openScreen sets it

/** The wall clock, shifted by `offset` ms: deliveries made "three days ago" are recorded then. */
class ShiftedWallClock extends ManualClock {
  offset = 0;
  override now(): number {
    return Date.now() + this.offset;
  }
}

/** The day (YYYY-MM-DD) of a moment in the browser's time zone. */
const dayOf = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(new Date(ms));

/** The text a person reads in the page's main part, without code (event kinds, ids, bodies). */
async function plainText(page: Page): Promise<string> {
  return (await page.evaluate(
    `(() => { const main = document.querySelector('main').cloneNode(true); main.querySelectorAll('code, pre').forEach((e) => e.remove()); return main.textContent; })()`,
  )) as string;
}

const HARVEST = {
  harvest_record_id: 41,
  parcel_id: 3,
  crop_type_id: 2,
  quantity_kg: 1250.5,
  confirmed_at: '2026-11-22T06:30:00Z',
};
const ALERT = (message: string) => ({
  alert_id: 7,
  rule_id: 2,
  device_id: 5,
  device_code: 'soil-01',
  device_name: 'Soil probe 1',
  metric: 'soil_moisture',
  value: 12,
  threshold: 15,
  severity: 'warning',
  message,
});

describe('Webhooks insight: log filters, stats, the list’s last day and the event catalogue [sqlite, chromium]', () => {
  const database = new TestDatabase('sqlite');
  const clock = new ShiftedWallClock();
  let t: TestApp;
  let browser: Browser;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let farm: TestTenant;
  let token: string;
  let endpointId: string;
  let endpointUrl: string;
  let s: ScreenPage;
  let page: Page;

  const logRows = () => page.locator('table.deliveries > tbody > tr[data-delivery-id]');
  const rowKinds = async () => (await logRows().locator('th code').allTextContents()).sort();
  const emit = (type: 'harvest.batch.created' | 'iot.alert.raised', data: Record<string, unknown>) =>
    emitEvent({ clock }, { db: t.database.db, tenantId: farm.id }, type, data);
  /** Waits until no delivery of the farm is queued (every one has succeeded or failed). */
  async function settled(): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const open = await t.database.db
        .selectFrom('webhook_deliveries')
        .select('status')
        .where('status', 'in', ['pending', 'retrying'])
        .execute();
      if (open.length === 0) return;
      if (Date.now() > deadline) throw new Error(`${open.length} deliveries still queued`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  before(async () => {
    ensureWebBuilt();
    await database.create();
    // An alert whose message says FAIL-ME is refused by the receiver, every attempt.
    receiver = await startReceiver((r) =>
      r.body.includes('FAIL-ME') ? { status: 500, body: 'no' } : undefined,
    );
    t = await startTestApp(database.url, {
      clock,
      env: {
        WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        WEBHOOK_CA_FILE: receiver.caFile,
        WEBHOOK_RETRY_SCHEDULE: '300ms',
        WEBHOOK_TIMEOUT_MS: '3000',
      },
    });
    worker = createDeliveryWorker({
      database: t.database,
      clock,
      config: t.config,
      secretKey: t.config.secretKey!,
    });
    await worker.start();
    farm = await makeTenant(t.database.db);
    token = await loginToken(t.url, farm.code, farm.owner);
    endpointUrl = `${receiver.origin}/farm-events`;
    const added = await request(t.url, 'POST', '/api/webhooks', {
      token,
      json: { url: endpointUrl, events: ['*'], description: 'Packing house ERP' },
    });
    assert.equal(added.status, 201, added.text);
    endpointId = added.body.data.id;

    // Three days ago: one harvest batch, delivered (inside 7 days, outside 24 hours).
    clock.offset = -3 * DAY_MS;
    await emit('harvest.batch.created', HARVEST);
    await settled();
    clock.offset = 0;
    // Now: two harvest batches and one alert delivered, two alerts refused (failed after a retry).
    await emit('harvest.batch.created', HARVEST);
    await emit('harvest.batch.created', HARVEST);
    await emit('iot.alert.raised', ALERT('Soil is dry'));
    await emit('iot.alert.raised', ALERT('FAIL-ME once'));
    await emit('iot.alert.raised', ALERT('FAIL-ME twice'));
    await settled();

    browser = await launchBrowser();
    s = await openScreen(browser, t.url, { outputDir: OUTPUT });
    page = s.page;
  });
  afterEach(() => {
    assert.deepEqual(s.problems.splice(0), [], 'no console errors, uncaught exceptions or failed requests');
  });
  after(async () => {
    await s?.close();
    await browser?.close();
    await worker?.stop();
    await t?.close();
    await receiver?.close();
    await database.drop();
  });

  it('the list says each address’s last day in words', async () => {
    await page.goto('/manage/webhooks');
    await signIn(page, farm.code, farm.owner);
    const row = page.getByRole('row', { name: new RegExp(endpointUrl) });
    // 3 of the 5 deliveries of the last 24 hours went through (the one 3 days ago is not counted).
    await row.getByText('60% delivered in the last 24 hours').waitFor();
    await row.getByText('3 delivered, 2 failed').waitFor();
    await page.getByRole('columnheader', { name: 'Last 24 hours' }).waitFor();
    await s.screenshot('01-list-desktop');
    assert.deepEqual(await accessibilityViolations(page), []);

    // A second address without deliveries says so.
    const second = await request(t.url, 'POST', '/api/webhooks', {
      token,
      json: { url: `${receiver.origin}/quiet`, events: ['harvest.batch.created'] },
    });
    await page.reload();
    await page
      .getByRole('row', { name: new RegExp(`${receiver.origin}/quiet`) })
      .getByText('No deliveries in the last 24 hours')
      .waitFor();

    await page.setViewportSize(PHONE);
    await assertFits(page, 'the list at phone width');
    await s.screenshot('02-list-phone');
    await page.getByLabel('Language').selectOption('vi');
    await row.getByText('Gửi tới nơi 60% trong 24 giờ qua').waitFor();
    await row.getByText('3 lần tới nơi, 2 lần thất bại').waitFor();
    await page.getByText('Không có lần gửi nào trong 24 giờ qua').waitFor();
    await page.getByRole('link', { name: 'Các loại sự kiện và tin nhắn mẫu' }).waitFor();
    await assertFits(page, 'the list at phone width, in Vietnamese');
    assert.doesNotMatch(await plainText(page), /delivered|failed|Last 24 hours|Event kinds/);
    await s.screenshot('03-list-phone-vietnamese');
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.setViewportSize(DESKTOP);
    await request(t.url, 'DELETE', `/api/webhooks/${second.body.data.id}`, { token });
  });

  it('the endpoint’s stats: counts, rate, answer times and last times, over 24 hours and 7 days', async () => {
    const asked: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.endsWith('/stats')) asked.push(new URL(r.url()).search);
    });
    await page.getByRole('link', { name: endpointUrl }).click();
    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();
    const stats = page.getByRole('region', { name: 'How deliveries went' });
    const count = (name: string) => stats.locator('.stats-counts > div', { hasText: name }).locator('dd');
    await stats.locator('.stats-counts[data-window="24h"]').waitFor();
    assert.equal(await count('Delivered').textContent(), '3');
    assert.equal(await count('Failed every attempt').textContent(), '2');
    assert.equal(await count('Waiting or retrying now').textContent(), '0');
    assert.equal(
      await stats.locator('.stat-rate dd').textContent(),
      '60% of finished deliveries were delivered',
    );
    assert.match((await stats.locator('.stat-typical dd').textContent()) ?? '', /^\d+ ms$|^\d+(\.\d)? s$/);
    assert.match((await stats.locator('.stat-slow dd').textContent()) ?? '', /^(\d+ ms|\d+(\.\d)? s)1 in 20/);
    await stats.locator('.stat-last-success time').waitFor();
    await stats.locator('.stat-last-failure time').waitFor();
    assert.ok(asked.some((q) => q.includes('window=24h')));
    // The same figures as the API's.
    const day = (await request(t.url, 'GET', `/api/webhooks/${endpointId}/stats?window=24h`, { token })).body
      .data;
    assert.deepEqual([day.succeeded, day.failed, day.pending], [3, 2, 0]);
    // Counted from the hourly roll-up, whole hours: the note names the first hour, not the log's 50.
    const note = (await stats.locator(':scope > p.hint').textContent()) ?? '';
    assert.match(note, /^Counted hour by hour, from .+:00 .+\.$/);
    assert.doesNotMatch(note, /50/);

    await stats.getByLabel('Last 7 days').check();
    await stats.locator('.stats-counts[data-window="7d"]').waitFor();
    await stats
      .getByRole('status')
      .filter({ hasText: 'Showing the last 7 days.' })
      .waitFor({ state: 'attached' });
    assert.equal(await count('Delivered').textContent(), '4', 'the delivery of 3 days ago counts now');
    assert.equal(await count('Failed every attempt').textContent(), '2');
    assert.equal(
      await stats.locator('.stat-rate dd').textContent(),
      '67% of finished deliveries were delivered',
    );
    assert.ok(asked.some((q) => q.includes('window=7d')));
    await s.screenshot('04-detail-stats-desktop');
    assert.deepEqual(await accessibilityViolations(page), []);

    await stats.getByLabel('Last 24 hours').check();
    await stats.locator('.stats-counts[data-window="24h"]').waitFor();
    assert.equal(await count('Delivered').textContent(), '3');
  });

  it('the log’s filters narrow it to the right rows, and clearing them brings every row back', async () => {
    const asked: URLSearchParams[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.endsWith('/deliveries')) asked.push(url.searchParams);
    });
    await logRows().nth(5).waitFor();
    assert.equal(await logRows().count(), 6);
    const result = page.locator('.filter-result');

    // By result: the two refused alerts.
    await page.getByLabel('Result').selectOption('failed');
    await result.getByText('2 deliveries match these choices.').waitFor();
    assert.deepEqual(await rowKinds(), ['iot.alert.raised', 'iot.alert.raised']);
    assert.equal(await logRows().getByText('Failed').count(), 2);
    assert.match(page.url(), /status=failed/, 'the choices are in the address');
    assert.equal(asked.at(-1)?.get('status'), 'failed', 'the server narrows the log');

    // Result and event together: the one alert delivered.
    await page.getByLabel('Result').selectOption('succeeded');
    await page.getByLabel('Event').selectOption('iot.alert.raised');
    await result.getByText('1 delivery matches these choices.').waitFor();
    assert.deepEqual(await rowKinds(), ['iot.alert.raised']);
    assert.equal(asked.at(-1)?.get('event_type'), 'iot.alert.raised');

    // By event alone: the three harvest batches (one of 3 days ago).
    await page.getByLabel('Result').selectOption('');
    await page.getByLabel('Event').selectOption('harvest.batch.created');
    await result.getByText('3 deliveries match these choices.').waitFor();
    assert.deepEqual(await rowKinds(), [
      'harvest.batch.created',
      'harvest.batch.created',
      'harvest.batch.created',
    ]);

    // Kept while the page polls, and after a reload.
    await page.reload();
    await result.getByText('3 deliveries match these choices.').waitFor();
    assert.equal(await page.getByLabel('Event').inputValue(), 'harvest.batch.created');
    await page.waitForTimeout(5_500); // one slow poll
    assert.equal(await logRows().count(), 3, 'the polled log keeps the choices');
    await page.getByLabel('Event').selectOption('');

    // By days: today's five, the one of three days ago, and none from tomorrow.
    const now = Date.now();
    await page.getByLabel('From (day)').fill(dayOf(now));
    await result.getByText('5 deliveries match these choices.').waitFor();
    const since = new Date(asked.at(-1)!.get('since')!).getTime();
    assert.ok(since <= now && now - since < DAY_MS, 'from the start of the day in the browser’s time zone');
    await page.getByLabel('From (day)').fill('');
    await page.getByLabel('To (day)').fill(dayOf(now - 2 * DAY_MS));
    await result.getByText('1 delivery matches these choices.').waitFor();
    assert.deepEqual(await rowKinds(), ['harvest.batch.created']);
    await page.getByLabel('To (day)').fill('');
    await page.getByLabel('From (day)').fill(dayOf(now + DAY_MS));
    await result.getByText('No deliveries match these choices.').waitFor();
    assert.equal(await logRows().count(), 0);
    await s.screenshot('05-detail-filtered-none');
    assert.deepEqual(await accessibilityViolations(page), []);

    // The empty state's own button clears them, and the focus goes to the first choice.
    await page.locator('.filter-empty').getByRole('button', { name: 'Clear choices' }).click();
    await result.getByText('Showing every delivery.').waitFor();
    await logRows().nth(5).waitFor();
    assert.equal(await logRows().count(), 6);
    assert.equal(await page.evaluate('document.activeElement?.id'), 'log-filter-status');
    assert.equal(await page.getByLabel('From (day)').inputValue(), '');
    assert.doesNotMatch(page.url(), /since=|status=|event=/);

    // The form's button too.
    await page.getByLabel('Result').selectOption('failed');
    await result.getByText('2 deliveries match these choices.').waitFor();
    await page.locator('.log-filters').getByRole('button', { name: 'Clear choices' }).click();
    await logRows().nth(5).waitFor();
    assert.equal(await page.getByLabel('Result').inputValue(), '');
    await page.getByLabel('Result').selectOption('failed');
    await result.getByText('2 deliveries match these choices.').waitFor();
    await s.screenshot('06-detail-filters-stats-desktop');
  });

  it('the endpoint’s page fits a phone and speaks Vietnamese', async () => {
    await page.setViewportSize(PHONE);
    await assertFits(page, 'the detail page at phone width');
    await s.screenshot('07-detail-phone');
    assert.deepEqual(await accessibilityViolations(page), []);

    await page.getByLabel('Language').selectOption('vi');
    const stats = page.getByRole('region', { name: 'Tình hình gửi' });
    await stats.getByText('60% số lần gửi đã xong là thành công').waitFor();
    await page.getByLabel('Kết quả').waitFor();
    await page.locator('.filter-result').getByText('2 lần gửi khớp với các lựa chọn này.').waitFor();
    assert.equal(
      await page
        .getByLabel('Sự kiện', { exact: true })
        .locator('option[value="iot.alert.raised"]')
        .textContent(),
      'Cảm biến vượt ngưỡng',
    );
    assert.match((await stats.locator('.stat-typical dd').textContent()) ?? '', /mili giây|giây/);
    assert.match(
      (await stats.locator(':scope > p.hint').textContent()) ?? '',
      /^Đếm theo từng giờ, từ .+\.$/,
    );
    const text = await plainText(page);
    for (const english of [
      'How deliveries went',
      'Delivered',
      'Failed every attempt',
      'Waiting',
      'Success rate',
      'Usual answer time',
      'Slowest',
      'Last 24 hours',
      'Last 7 days',
      'Show only',
      'Any event',
      'From (day)',
      'Clear choices',
      'match these choices',
      ' ms',
    ]) {
      assert.ok(!text.includes(english), `no English left: "${english}"`);
    }
    await assertFits(page, 'the detail page at phone width, in Vietnamese');
    await s.screenshot('08-detail-phone-vietnamese');
    await stats.scrollIntoViewIfNeeded();
    await s.screenshot('08-detail-phone-vietnamese-stats', { fullPage: false });
    await page.locator('.log-filters').scrollIntoViewIfNeeded();
    await s.screenshot('08-detail-phone-vietnamese-filters', { fullPage: false });
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.setViewportSize(DESKTOP);
    await s.screenshot('09-detail-desktop-vietnamese');
    await page.getByLabel('Ngôn ngữ').selectOption('en');
  });

  it('the event catalogue lists every kind the API lists, with its example and schema, in both languages', async () => {
    const english = (await request(t.url, 'GET', '/api/webhooks/event-types', { token })).body.data as {
      type: string;
      description: string;
      example: unknown;
    }[];
    const vietnamese = (
      await request(t.url, 'GET', '/api/webhooks/event-types', {
        token,
        headers: { 'accept-language': 'vi' },
      })
    ).body.data as { type: string; description: string }[];
    assert.ok(english.length >= 5);

    await page.getByRole('link', { name: 'All webhooks' }).click();
    await page.getByRole('link', { name: 'Event kinds and example messages' }).click();
    await page.getByRole('heading', { level: 1, name: 'Event kinds' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/manage/webhooks/events');
    assert.equal(await page.title(), 'Event kinds · Furrow');
    const kinds = page.locator('article.event-kind');
    await kinds.nth(english.length - 1).waitFor();
    assert.deepEqual(
      await kinds.locator('h3 code').allTextContents(),
      english.map((k) => k.type),
    );
    for (const kind of english) {
      const article = page.locator(`article[data-event-type="${kind.type}"]`);
      assert.equal(await article.locator('.event-kind-description').textContent(), kind.description);
      const example = article.getByRole('region', { name: `Example message of ${kind.type}` });
      assert.equal(await example.isVisible(), false, 'folded away until asked for');
      await article.getByText('Example message').click();
      assert.deepEqual(JSON.parse((await example.locator('pre').textContent()) ?? ''), kind.example);
    }
    await page.getByRole('heading', { level: 2, name: 'Sensors and devices' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Harvests' }).waitFor();
    const first = page.locator('article.event-kind').first();
    await first.getByText('Every field of the message').click();
    const schema = first.getByRole('region', { name: `Fields of ${english[0]!.type}` });
    assert.equal(JSON.parse((await schema.locator('pre').textContent()) ?? '').type, 'object');
    await s.screenshot('10-catalogue-desktop');
    assert.deepEqual(await accessibilityViolations(page), []);

    await page.setViewportSize(PHONE);
    await assertFits(page, 'the catalogue at phone width, examples open');
    await s.screenshot('11-catalogue-phone');
    await page.evaluate('window.scrollTo(0, 0)');
    await s.screenshot('11-catalogue-phone-top', { fullPage: false });

    // In Vietnamese the descriptions come from the API in Vietnamese.
    await page.reload();
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('heading', { level: 1, name: 'Các loại sự kiện' }).waitFor();
    for (const kind of vietnamese) {
      await page
        .locator(`article[data-event-type="${kind.type}"] .event-kind-description`)
        .getByText(kind.description, { exact: true })
        .waitFor();
    }
    assert.notEqual(vietnamese[0]!.description, english[0]!.description);
    await page.getByRole('heading', { level: 2, name: 'Cảm biến và thiết bị' }).waitFor();
    await page.locator('article.event-kind').first().getByText('Tin nhắn mẫu').click();
    const text = await plainText(page);
    for (const word of ['Event kinds', 'Example message', 'Every field', 'Group', 'Sensors', 'Harvests']) {
      assert.ok(!text.includes(word), `no English left: "${word}"`);
    }
    for (const kind of english) assert.ok(!text.includes(kind.description), 'no English description');
    await assertFits(page, 'the catalogue at phone width, in Vietnamese');
    await s.screenshot('12-catalogue-phone-vietnamese');
    await page.evaluate('window.scrollTo(0, 0)');
    await s.screenshot('12-catalogue-phone-vietnamese-top', { fullPage: false });
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.setViewportSize(DESKTOP);
    await s.screenshot('13-catalogue-desktop-vietnamese');
    await page.getByLabel('Ngôn ngữ').selectOption('en');
  });
});
