// The owner's controls of the Webhooks section (pause and resume, sending failed deliveries again,
// rotation with an overlap, tests of any kind, custom headers and severity filters) in a real
// headless Chromium against a real Furrow app, a real delivery worker and a real HTTPS receiver.
// Every test fails on a console error; screenshots go to test-output/webhooks-controls/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { emitEvent } from '../../src/modules/webhooks/outbox.js';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/worker.js';
import { ManualClock } from '../../src/platform/clock.js';
import { request, startTestApp, type TestApp } from '../support/app.js';
import {
  accessibilityViolations,
  ensureWebBuilt,
  launchBrowser,
  openScreen,
  type ScreenPage,
  sidewaysOverflow,
  signIn,
  TEST_OUTPUT_DIR,
  waitForFocus,
  waitForFocusedId,
  waitInPage,
} from '../support/browser.js';
import { TestDatabase } from '../support/databases.js';
import { makeTenant, type TestTenant } from '../support/factories.js';
import { type ReceivedRequest, type Receiver, startReceiver } from '../support/webhook-receiver.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'webhooks-controls');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** The wall clock, where the app expects a ManualClock: deliveries and retries run in real time. */
class WallClock extends ManualClock {
  override now(): number {
    return Date.now();
  }
}

/** The text a person reads in the page's main part, without code (event kinds, header names). */
async function plainText(page: Page): Promise<string> {
  return (await page.evaluate(
    `(() => { const main = document.querySelector('main').cloneNode(true); main.querySelectorAll('code, pre').forEach((e) => e.remove()); return main.textContent; })()`,
  )) as string;
}

/** Words of the new parts in English: none may be left once the page speaks Vietnamese. */
const ENGLISH =
  /Pause|Send|failed|again|secret|Rotate|Header|Remove|Value|Name|severit|Critical|Warning|Info|hour|days|Until|kept|filters|Cancel|test/;

const alert = (severity: string, alertId: number) => ({
  alert_id: alertId,
  device_id: 7,
  device_code: 'soil-07',
  zone_id: 3,
  parcel_ids: [12],
  metric: 'soil_moisture',
  value: 11.5,
  threshold: 15,
  severity,
  message: 'soil-07: soil_moisture 11.5 lt 15',
  rule_id: 2,
  recorded_at: new Date().toISOString(),
});

describe('Webhooks section: the owner’s controls [sqlite, chromium]', () => {
  const database = new TestDatabase('sqlite');
  let t: TestApp;
  let browser: Browser;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let farm: TestTenant;
  let s: ScreenPage;
  let page: Page;
  let endpointUrl: string;
  let endpointId: string;
  let secret: string;

  const token = async () =>
    (await page.evaluate('JSON.parse(sessionStorage.getItem("furrow.session")).token')) as string;
  const getEndpoint = async () =>
    (await request(t.url, 'GET', `/api/webhooks/${endpointId}`, { token: await token() })).body.data;
  const raise = (severity: string, alertId: number) =>
    emitEvent(
      { clock: t.clock },
      { db: t.database.db, tenantId: farm.id },
      'iot.alert.raised',
      alert(severity, alertId),
    );
  const logRows = () => page.locator('table.deliveries > tbody > tr[data-delivery-id]');
  const alertIdOf = (r: ReceivedRequest) =>
    (JSON.parse(r.body) as { data: { alert_id: number } }).data.alert_id;

  before(async () => {
    ensureWebBuilt();
    await database.create();
    receiver = await startReceiver();
    t = await startTestApp(database.url, {
      clock: new WallClock(),
      env: {
        WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        WEBHOOK_CA_FILE: receiver.caFile,
        WEBHOOK_RETRY_SCHEDULE: '1s,1s',
        WEBHOOK_TIMEOUT_MS: '3000',
      },
    });
    worker = createDeliveryWorker({
      database: t.database,
      clock: t.clock,
      config: t.config,
      secretKey: t.config.secretKey!,
    });
    await worker.start();
    farm = await makeTenant(t.database.db);
    endpointUrl = `${receiver.origin}/farm-alerts`;
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

  it('adds an address with a header and a critical-only filter; Host is refused next to its row', async () => {
    await page.goto('/manage/webhooks');
    await signIn(page, farm.code, farm.owner);
    await page.getByText('No webhooks yet').waitFor();
    await page.getByRole('link', { name: 'Add receiving address' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Add a receiving address' }).waitFor();
    await page.getByLabel('Receiving address').fill(endpointUrl);

    // The operational event is offered in plain words, not selected by default.
    const pausedKind = page.getByRole('checkbox', { name: /Sending to another of your addresses is paused/ });
    assert.equal(await pausedKind.isChecked(), false);

    // Two headers: one the receiver asks for, and Host, which the server refuses.
    await page.getByRole('button', { name: 'Add a header' }).click();
    await waitForFocus(page, 'input', '');
    const names = page.getByLabel('Name', { exact: true });
    const values = page.getByLabel('Value', { exact: true });
    await names.nth(0).fill('X-Farm-Key');
    await values.nth(0).fill('k-123');
    await page.getByRole('button', { name: 'Add a header' }).click();
    await names.nth(1).fill('Host');
    await values.nth(1).fill('evil.example');

    // Critical alerts only, for "A sensor crosses a threshold".
    const raised = page.getByRole('group', { name: 'A sensor crosses a threshold: only these severities' });
    await raised.getByRole('checkbox', { name: 'Warning' }).uncheck();
    await raised.getByRole('checkbox', { name: 'Info' }).uncheck();
    await s.screenshot('01-form-desktop');

    await page.getByRole('button', { name: 'Add receiving address' }).click();
    const hostRow = page.locator('.header-row').nth(1);
    const hostError = hostRow.locator('.field-error');
    await hostError.waitFor();
    assert.equal(
      await hostError.textContent(),
      'Host cannot be set here: the connection sets it itself. Use another name.',
    );
    assert.equal(await page.locator('.header-row').nth(0).locator('.field-error').count(), 0);
    assert.equal(await names.nth(1).getAttribute('aria-invalid'), 'true');
    const hostNameId = (await names.nth(1).getAttribute('id'))!;
    await waitForFocusedId(page, hostNameId); // the focus is on the row to fix
    await s.screenshot('02-form-host-refused');
    assert.deepEqual(await accessibilityViolations(page), []);

    await page.getByRole('button', { name: 'Remove header 2' }).click();
    await waitForFocusedId(page, (await names.nth(0).getAttribute('id'))!); // the row left
    await page.getByRole('button', { name: 'Add receiving address' }).click();
    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();
    secret = await page.getByLabel('Signing secret', { exact: true }).inputValue();
    await page.getByRole('button', { name: 'I have saved the secret' }).click();
    endpointId = (await page.locator('.settings dd code').last().textContent())!;

    const saved = await getEndpoint();
    assert.deepEqual(saved.headers, { 'X-Farm-Key': 'k-123' });
    assert.deepEqual(saved.filters, { 'iot.alert.raised': { severity: ['critical'] } });
    assert.equal(saved.events.includes('webhook.endpoint.paused'), false);
    const settings = page.locator('.settings');
    await settings.getByText('only critical').waitFor();
    await settings.locator('code', { hasText: 'X-Farm-Key' }).waitFor();
    assert.equal(await settings.getByText('k-123').count(), 0, 'header values are not shown');

    // A warning is filtered out; a critical alert arrives with the header.
    const from = receiver.requests.length;
    await raise('warning', 1);
    await raise('critical', 2);
    const [got] = (await receiver.waitForRequests(from + 1)).slice(from);
    assert.equal(alertIdOf(got!), 2);
    assert.equal(got!.headers['x-farm-key'], 'k-123');
    await logRows().first().getByText('Succeeded').waitFor();
    assert.equal(await logRows().count(), 1, 'the warning made no delivery');
  });

  it('keeps a filter made through the API when the form is saved, and says it is there', async () => {
    const filters = {
      'iot.alert.raised': { severity: ['critical'] },
      'iot.device.offline': { device_code: ['soil-07'] },
    };
    const put = await request(t.url, 'PUT', `/api/webhooks/${endpointId}`, {
      token: await token(),
      json: { filters },
    });
    assert.ok(put.status < 300, put.text);
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit receiving address' }).waitFor();
    await page.getByText('This address has other filters set through the API').waitFor();
    const raised = page.getByRole('group', { name: 'A sensor crosses a threshold: only these severities' });
    assert.equal(await raised.getByRole('checkbox', { name: 'Critical' }).isChecked(), true);
    assert.equal(await raised.getByRole('checkbox', { name: 'Warning' }).isChecked(), false);
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'X-Farm-Key');
    assert.equal(await page.getByLabel('Value', { exact: true }).inputValue(), 'k-123');

    // No severity left: refused here, before anything is sent.
    await raised.getByRole('checkbox', { name: 'Critical' }).uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await raised.getByText('Choose at least one severity').waitFor();
    await raised.getByRole('checkbox', { name: 'Critical' }).check();

    await page.getByLabel('Description (optional)').fill('Alarm panel');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved.').waitFor();
    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();
    const saved = await getEndpoint();
    assert.deepEqual(saved.filters, filters, 'the API-made filter is kept unchanged');
    assert.deepEqual(saved.headers, { 'X-Farm-Key': 'k-123' });
  });

  it('sends a test of the alert kind: it arrives marked as a test', async () => {
    const from = receiver.requests.length;
    await page.getByLabel('Message to send as a test').selectOption('iot.alert.raised');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Test message “A sensor crosses a threshold” sent.' })
      .waitFor();
    await waitForFocus(page, 'button', 'Send test');
    const [got] = (await receiver.waitForRequests(from + 1)).slice(from);
    const body = JSON.parse(got!.body) as { type: string; test?: boolean; data: { severity: string } };
    assert.equal(body.type, 'iot.alert.raised');
    assert.equal(body.test, true);
    assert.equal(got!.headers['x-farm-key'], 'k-123');
    await logRows().first().locator('th code', { hasText: 'iot.alert.raised' }).waitFor();
  });

  it('pauses after a confirmation; an event is held and sent once sending is re-enabled', async () => {
    await page.getByRole('button', { name: 'Pause sending' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pause sending to this address?' });
    await dialog.getByText(/new events are kept and sent, oldest first/).waitFor();
    await s.screenshot('03-pause-dialog-desktop', { fullPage: false });
    assert.deepEqual(await accessibilityViolations(page), []);
    await dialog.getByRole('button', { name: 'Pause sending' }).click();
    await page.getByRole('status').filter({ hasText: 'Sending paused.' }).waitFor();
    await page.getByText('Paused by the owner.').waitFor();
    await waitForFocus(page, 'button', 'Re-enable'); // the Pause button is gone
    assert.equal(await page.getByRole('button', { name: 'Pause sending' }).count(), 0);
    assert.equal((await getEndpoint()).paused_reason, 'owner');

    const from = receiver.requests.length;
    await raise('critical', 3);
    await page.getByText('1 delivery is held and will be sent when you re-enable it.').waitFor();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(receiver.requests.length, from, 'nothing is sent while paused');

    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page
      .getByRole('dialog', { name: 'Re-enable this webhook?' })
      .getByRole('button', { name: 'Re-enable' })
      .click();
    await page.getByRole('status').filter({ hasText: 'Sending re-enabled.' }).waitFor();
    const [held] = (await receiver.waitForRequests(from + 1)).slice(from);
    assert.equal(alertIdOf(held!), 3, 'the held event is sent after resume');
    await page.getByRole('button', { name: 'Pause sending' }).waitFor();
  });

  it('sends failed deliveries again for a period, with the count announced', async () => {
    receiver.script = () => ({ status: 500, body: 'down' });
    await raise('critical', 4);
    await raise('critical', 5);
    await waitInPage(
      page,
      () => (globalThis as any).document.querySelectorAll('table.deliveries .badge-failed').length >= 2,
      undefined,
      'two failed deliveries in the log',
      30_000,
    );
    receiver.script = () => undefined;

    await page.getByRole('button', { name: 'Send failed deliveries again' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send failed deliveries again' });
    await dialog.waitFor();
    await waitForFocusedId(page, 'recover-since');
    const since = dialog.getByLabel('Failed from');
    assert.match(await since.inputValue(), /^\d{4}-\d\d-\d\dT\d\d:\d\d$/, 'a date and time, 24 hours ago');
    // An end before the start: the server's refusal is shown next to the field.
    await dialog.getByLabel('Until (optional)').fill('2020-01-01T08:00');
    await dialog.getByRole('button', { name: 'Send again' }).click();
    await dialog.locator('#recover-since-error', { hasText: 'The start must be before the end.' }).waitFor();
    assert.equal(await since.getAttribute('aria-invalid'), 'true');
    await s.screenshot('04-recover-dialog-refused', { fullPage: false });
    assert.deepEqual(await accessibilityViolations(page), []);

    await dialog.getByLabel('Until (optional)').fill('');
    const from = receiver.requests.length;
    await dialog.getByRole('button', { name: 'Send again' }).click();
    await page.getByRole('status').filter({ hasText: '2 failed deliveries will be sent again.' }).waitFor();
    await waitForFocus(page, 'button', 'Send failed deliveries again');
    const again = (await receiver.waitForRequests(from + 2)).slice(from);
    assert.deepEqual(again.map(alertIdOf).sort(), [4, 5]);
    await waitInPage(
      page,
      () => (globalThis as any).document.querySelectorAll('table.deliveries .badge-failed').length === 0,
      undefined,
      'no failed delivery left in the log',
    );
  });

  it('rotates with a 1 hour overlap: the expiry is shown and messages carry both signatures', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    assert.equal(await dialog.getByRole('radio', { name: '24 hours' }).isChecked(), true, 'the default');
    await dialog.getByRole('radio', { name: '1 hour' }).check();
    await s.screenshot('05-rotate-dialog-desktop', { fullPage: false });
    assert.deepEqual(await accessibilityViolations(page), []);
    const asked = page.waitForRequest((r) => r.url().endsWith('/rotate-secret'));
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    assert.deepEqual((await asked).postDataJSON(), { expire_previous_in_seconds: 3600 });
    await waitForFocus(page, 'h2', 'Signing secret');
    const rotated = await page.getByLabel('Signing secret', { exact: true }).inputValue();
    assert.notEqual(rotated, secret);
    await page
      .getByText(/^Secret rotated\. The previous secret keeps working until /)
      .first()
      .waitFor();

    const expires = (await getEndpoint()).previous_secret_expires_at as string;
    const left = new Date(expires).getTime() - Date.now();
    assert.ok(left > 3500_000 && left <= 3600_000, `about an hour left (${left} ms)`);
    await page.getByRole('button', { name: 'I have saved the secret' }).click();
    const note = page.locator('.settings .previous-secret');
    await note.getByText(/^The previous secret keeps working until .*GMT\+7\.$/).waitFor();
    const shownTime = await page.evaluate(
      `new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' }).format(new Date(${JSON.stringify(expires)}))`,
    );
    assert.match((await note.textContent()) ?? '', new RegExp(`${shownTime}`));
    await s.screenshot('06-detail-after-rotation-desktop');

    const from = receiver.requests.length;
    await page.getByLabel('Message to send as a test').selectOption('webhook.test');
    await page.getByRole('button', { name: 'Send test' }).click();
    const [got] = (await receiver.waitForRequests(from + 1)).slice(from);
    const parts = got!.headers['webhook-signature']!.split(' ');
    assert.equal(parts.length, 2, 'two signatures');
    assert.ok(parts.every((p) => p.startsWith('v1,')));
    for (const [i, key] of [rotated, secret].entries()) {
      const alone = { ...got!.headers, 'webhook-signature': parts[i]! };
      assert.doesNotThrow(() => new Webhook(key).verify(got!.body, alone), `signature ${i + 1}`);
    }
    secret = rotated;
  });

  it('speaks Vietnamese in every new part and fits a phone, dialogs open', async () => {
    await page.setViewportSize(PHONE);
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('button', { name: 'Gửi thử' }).waitFor();
    await page.getByText(/^Khóa bí mật trước vẫn dùng được đến /).waitFor();
    assert.doesNotMatch(await plainText(page), ENGLISH);
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the detail page fits a phone');
    await s.screenshot('07-detail-phone-vietnamese');
    assert.deepEqual(await accessibilityViolations(page), []);

    await page.getByRole('button', { name: 'Tạm dừng gửi' }).click();
    const pause = page.getByRole('dialog', { name: 'Tạm dừng gửi tới địa chỉ này?' });
    await pause.waitFor();
    assert.doesNotMatch(await plainText(page), ENGLISH);
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await s.screenshot('08-pause-dialog-phone-vietnamese', { fullPage: false });
    await pause.getByRole('button', { name: 'Hủy' }).click();
    await waitForFocus(page, 'button', 'Tạm dừng gửi');

    await page.getByRole('button', { name: 'Gửi lại các lần gửi thất bại' }).click();
    const recover = page.getByRole('dialog', { name: 'Gửi lại các lần gửi thất bại' });
    await recover.getByLabel('Thất bại từ').waitFor();
    await recover.getByLabel('Đến (không bắt buộc)').fill('2020-01-01T08:00');
    await recover.getByRole('button', { name: 'Gửi lại' }).click();
    await recover
      .locator('#recover-since-error', { hasText: 'Thời điểm bắt đầu phải trước thời điểm kết thúc.' })
      .waitFor();
    assert.doesNotMatch(await plainText(page), ENGLISH);
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await s.screenshot('09-recover-dialog-phone-vietnamese', { fullPage: false });
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.keyboard.press('Escape');
    await recover.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Đổi khóa bí mật' }).click();
    const rotate = page.getByRole('dialog');
    await rotate.getByRole('radio', { name: '7 ngày' }).waitFor();
    assert.doesNotMatch(await plainText(page), ENGLISH);
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await s.screenshot('10-rotate-dialog-phone-vietnamese', { fullPage: false });
    await page.keyboard.press('Escape');
    await rotate.waitFor({ state: 'detached' });

    // The form, with the headers and the filters, refused in Vietnamese next to the row.
    await page.getByRole('link', { name: 'Sửa' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sửa địa chỉ nhận sự kiện' }).waitFor();
    await page.getByRole('button', { name: 'Thêm tiêu đề' }).click();
    await page.getByLabel('Tên', { exact: true }).nth(1).fill('Content-Type');
    await page.getByRole('button', { name: 'Lưu thay đổi' }).click();
    await page
      .locator('.header-row')
      .nth(1)
      .locator('.field-error', {
        hasText: 'Không đặt được Content-Type ở đây: kết nối tự đặt tiêu đề này. Hãy dùng tên khác.',
      })
      .waitFor();
    assert.doesNotMatch(await plainText(page), ENGLISH);
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the form fits a phone');
    await s.screenshot('11-form-phone-vietnamese');
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.getByRole('link', { name: 'Hủy' }).click();
    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();

    // English at phone width, and the dialogs on a desktop in Vietnamese.
    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.getByRole('button', { name: 'Send test' }).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await s.screenshot('12-detail-phone');
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit receiving address' }).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await s.screenshot('13-form-phone');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();
    await page.getByRole('button', { name: 'Send failed deliveries again' }).click();
    assert.ok((await sidewaysOverflow(page)) <= 0);
    await s.screenshot('14-recover-dialog-phone', { fullPage: false });
    await page.keyboard.press('Escape');

    await page.setViewportSize(DESKTOP);
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('button', { name: 'Gửi lại các lần gửi thất bại' }).click();
    await s.screenshot('15-recover-dialog-desktop-vietnamese', { fullPage: false });
    await page.keyboard.press('Escape');
    await page.getByRole('link', { name: 'Sửa' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sửa địa chỉ nhận sự kiện' }).waitFor();
    await s.screenshot('16-form-desktop-vietnamese');
    await page.getByLabel('Ngôn ngữ').selectOption('en');
  });
});
