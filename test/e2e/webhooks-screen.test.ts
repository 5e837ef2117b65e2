// The farm app's Webhooks section (/manage/webhooks) in a real headless Chromium against a real
// Furrow app serving the built web/dist. Every test fails on a console error or an uncaught
// exception and saves screenshots under test-output/webhooks-screen/.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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
  useScreenSuite,
  waitForFocus,
  waitForFocusedId,
  waitInPage,
} from '../support/browser.js';
import { TestDatabase } from '../support/databases.js';
import { makeTenant, type TestTenant } from '../support/factories.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'webhooks-screen');
const PHONE = { width: 390, height: 844 };

/** The text a person reads in the page's main part, without code (event kinds, ids, headers, bodies). */
async function plainText(page: Page): Promise<string> {
  return (await page.evaluate(
    `(() => { const main = document.querySelector('main').cloneNode(true); main.querySelectorAll('code, pre').forEach((e) => e.remove()); return main.textContent; })()`,
  )) as string;
}

describe('Webhooks section: signing in and out [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;

  it('signs in with the keyboard alone, after a wrong password is refused with the reason', async () => {
    const { page, screenshot } = await screen();
    await page.goto('/');
    await page.waitForURL('**/manage/');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();

    // Nothing filled in: each empty field says so, next to it, and is marked invalid.
    await page.getByLabel('Farm code').fill(suite.farm.code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Fill in the farm code, username and password.' })
      .waitFor();
    assert.equal(await page.locator('#signin-username-error').textContent(), 'Fill this in.');
    assert.equal(await page.locator('#signin-password-error').textContent(), 'Fill this in.');
    assert.equal(await page.locator('#signin-tenant-error').count(), 0);
    assert.equal(await page.getByLabel('Username').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await accessibilityViolations(page), []);

    await signIn(page, suite.farm.code, { username: 'owner', password: 'wrong-password' });
    await page.getByRole('alert').filter({ hasText: 'The account or password is incorrect' }).waitFor();
    await screenshot('01-sign-in-refused');
    assert.deepEqual(await accessibilityViolations(page), []);

    // Keyboard only: Tab from field to field, Enter to submit.
    await page.getByLabel('Password').fill('');
    await page.getByLabel('Farm code').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.id'), 'signin-username');
    await page.keyboard.press('Tab');
    await page.keyboard.type(suite.farm.owner.password);
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { level: 1, name: 'Today' }).waitFor();
    await page.getByText(`Signed in as Ana Tran (owner), Farm ${suite.farm.code}`).waitFor();
    const stored = await page.evaluate('JSON.parse(sessionStorage.getItem("furrow.session")).token');
    assert.equal(typeof stored, 'string', 'the token is kept in sessionStorage');
    await screenshot('02-signed-in');
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  it('tells a staff member who follows a link that only owners use webhooks', async () => {
    const { page, screenshot } = await screen();
    await page.goto('/manage/webhooks');
    await signIn(page, suite.farm.code, suite.staff);
    await page.getByRole('heading', { name: 'Only owners can use Webhooks' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add receiving address' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Add receiving address' }).count(), 0);
    await screenshot('03-staff');
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  it('goes back to sign-in with a message when the token expires', async () => {
    const { page, screenshot } = await screen();
    await page.goto('/manage/webhooks');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();

    suite.t.clock.advance(36_001 * 1000); // past TOKEN_TTL_SECONDS
    try {
      await page.reload();
      // The sign-in page first, then its notice (a wait for the notice alone, started while the
      // reloaded page was still loading, was seen to miss it).
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await page.getByText('Your session has expired. Please sign in again.').waitFor();
      assert.equal(await page.evaluate('sessionStorage.getItem("furrow.session")'), null);
      assert.equal(
        await page.getByLabel('Farm code').inputValue(),
        suite.farm.code,
        'ready to sign in again',
      );
      assert.equal(await page.getByLabel('Username').inputValue(), 'owner');
      assert.equal(await page.getByLabel('Password').inputValue(), '');
      await screenshot('04-expired');

      // A page that polls may find the token expired before the user reloads: the reloaded
      // sign-in page still says why, with the same account.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await page.getByText('Your session has expired. Please sign in again.').waitFor();
      assert.equal(await page.getByLabel('Farm code').inputValue(), suite.farm.code);
      assert.equal(await page.getByLabel('Username').inputValue(), 'owner');
    } finally {
      suite.t.clock.advance(-36_001 * 1000);
    }
  });

  it('signs out: the token is revoked, the app says so and the focus is on the sign-in heading', async () => {
    const { page, screenshot } = await screen();
    await page.goto('/manage/webhooks');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const token = (await page.evaluate(
      'JSON.parse(sessionStorage.getItem("furrow.session")).token',
    )) as string;

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await waitForFocus(page, 'h1', 'Sign in');
    assert.equal(await page.getByLabel('Username').inputValue(), '', 'nothing of the last user is left');
    assert.equal(await page.evaluate('sessionStorage.getItem("furrow.session")'), null);
    const me = await request(suite.t.url, 'GET', '/api/auth/me', { token });
    assert.equal(me.status, 401, 'the signed-out token no longer works');
    await screenshot('05-signed-out');
  });

  it('speaks Vietnamese, server messages included, and fits a phone screen', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/');
    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('heading', { level: 1, name: 'Đăng nhập' }).waitFor();
    assert.equal(await page.evaluate('document.documentElement.lang'), 'vi');

    await page.getByLabel('Mã doanh nghiệp').fill(suite.farm.code);
    await page.getByLabel('Tên đăng nhập').fill('owner');
    await page.getByLabel('Mật khẩu').fill('wrong-password');
    await page.getByRole('button', { name: 'Đăng nhập' }).click();
    await page.getByRole('alert').filter({ hasText: 'Tài khoản hoặc mật khẩu không đúng' }).waitFor();

    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(Number(overflow) <= 0, `no sideways scrolling at phone width (${overflow}px too wide)`);
    await screenshot('06-phone-vietnamese');
  });
});

/** The wall clock, where the app expects a ManualClock: deliveries and retries run in real time. */
class WallClock extends ManualClock {
  override now(): number {
    return Date.now();
  }
}

const HARVEST = {
  harvest_record_id: 41,
  parcel_id: 3,
  crop_type_id: 2,
  quantity_kg: 1250.5,
  confirmed_at: '2026-11-22T06:30:00Z',
};

describe('Webhooks section: managing endpoints and deliveries [sqlite, chromium]', () => {
  const database = new TestDatabase('sqlite');
  let t: TestApp;
  let browser: Browser;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let farm: TestTenant;
  let s: ScreenPage;
  let page: Page;
  let endpointUrl: string;
  let secret: string;

  /** The delivery log's row for a delivery, or the newest row of an event type. */
  const logRows = () => page.locator('table.deliveries > tbody > tr[data-delivery-id]');
  const raise = () =>
    emitEvent({ clock: t.clock }, { db: t.database.db, tenantId: farm.id }, 'harvest.batch.created', HARVEST);

  before(async () => {
    ensureWebBuilt();
    await database.create();
    receiver = await startReceiver();
    t = await startTestApp(database.url, {
      clock: new WallClock(),
      env: {
        WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        WEBHOOK_CA_FILE: receiver.caFile,
        WEBHOOK_RETRY_SCHEDULE: '1500ms,1500ms,1500ms,1500ms,1500ms,1500ms',
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
    endpointUrl = `${receiver.origin}/farm-events`;
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

  it('adds an endpoint after refusing a private and a plain-http URL with the server’s reason in plain words', async () => {
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'GET' && new URL(r.url()).pathname === '/api/webhooks') asked.push(r.url());
    });
    await page.goto('/manage/webhooks');
    await signIn(page, farm.code, farm.owner);
    await page.getByText('No webhooks yet').waitFor();
    assert.equal(await page.title(), 'Webhooks · Furrow');
    await page.waitForLoadState('networkidle');
    assert.equal(asked.length, 1, 'the list is asked for once per page load');
    await page.getByRole('link', { name: 'Add receiving address' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Add a receiving address' }).waitFor();
    // Moving to another page puts the focus on its heading (screen readers read the new page).
    await waitForFocus(page, 'h1', 'Add a receiving address');

    const url = page.getByLabel('Receiving address');
    await url.fill('https://10.0.0.7/hooks');
    await page.getByRole('button', { name: 'Add receiving address' }).click();
    const urlError = page.locator('#endpoint-url-error');
    await urlError.waitFor();
    assert.equal(
      await urlError.textContent(),
      'This address (10.0.0.7) is inside a private network. Furrow can only send to servers on the public internet.',
    );
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    // The focus moves to the field.
    await waitForFocusedId(page, 'endpoint-url');
    await s.screenshot('10-private-url-refused');
    assert.deepEqual(await accessibilityViolations(page), []);

    await url.fill('http://example.com/hooks');
    await page.getByRole('button', { name: 'Add receiving address' }).click();
    await page
      .locator('#endpoint-url-error')
      .filter({ hasText: 'The address must start with https:// so messages are sent encrypted.' })
      .waitFor();

    await url.fill(endpointUrl);
    await page.getByLabel('Description (optional)').fill('Packing house ERP');
    // Every kind is selected by default; keep all of them.
    assert.equal(await page.getByRole('checkbox', { name: /A harvest batch is declared/ }).isChecked(), true);
    await page.getByRole('button', { name: 'Add receiving address' }).click();

    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();
    await page.getByText('Copy this secret now: you will not see it again.').waitFor();
    await waitForFocus(page, 'h2', 'Signing secret'); // the secret is what to read first
    assert.equal(await page.title(), `${endpointUrl} · Furrow`);
    secret = await page.getByLabel('Signing secret', { exact: true }).inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await s.screenshot('11-secret-shown-once');
    assert.deepEqual(await accessibilityViolations(page), []);

    await page.getByRole('button', { name: 'I have saved the secret' }).click();
    assert.equal(
      await page.getByLabel('Signing secret', { exact: true }).count(),
      0,
      'the secret is gone once dismissed',
    );
    await waitForFocus(page, 'h1', endpointUrl); // not dropped to the page's body
    await page.reload();
    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();
    assert.equal(
      await page.getByLabel('Signing secret', { exact: true }).count(),
      0,
      'and never shown again',
    );
  });

  it('sends a test: it appears in the log with its attempt, signed with the secret', async () => {
    await page.getByText('No deliveries yet. Send a test to see one here.').waitFor();
    const headingTop = (await page.locator('h1').boundingBox())!.y;
    await page.getByRole('button', { name: 'Send test' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Test message sent. Its result appears in the delivery log.' })
      .waitFor();
    await waitForFocus(page, 'button', 'Send test'); // the focus stays where it was
    assert.equal(
      (await page.locator('h1').boundingBox())!.y,
      headingTop,
      'the confirmation does not push the page',
    );
    const row = logRows().first();
    await row.getByText('Succeeded').waitFor(); // no reload: the log refreshes itself
    assert.equal(await row.locator('th code').textContent(), 'webhook.test');
    assert.match(
      (await row.locator('time').first().textContent()) ?? '',
      /GMT\+7/,
      "the browser's time zone",
    );

    const [sent] = await receiver.waitForRequests(1);
    const expected = `sha256=${createHmac('sha256', secret)
      .update(`${sent!.headers['x-service-timestamp']}.${sent!.body}`)
      .digest('hex')}`;
    assert.equal(sent!.headers['x-service-signature'], expected, 'signed with the secret the screen showed');

    const deliveryId = sent!.headers['x-service-delivery']!;
    await page.getByRole('button', { name: `Details of delivery ${deliveryId}` }).click();
    const details = page.locator('.delivery-details');
    await details.getByText('Attempt 1').waitFor();
    await details.getByText(deliveryId).first().waitFor();
    assert.match((await details.locator('.attempt').textContent()) ?? '', /200/);
    assert.match(
      (await details.locator('pre.code-block').last().textContent()) ?? '',
      /"type": "webhook.test"/,
    );
    await details.locator('.request-headers dt', { hasText: 'content-type' }).waitFor();
    // The message body is shown whole and can be reached (and scrolled) with the keyboard.
    const body = page.getByRole('region', { name: `Message body of delivery ${deliveryId}` });
    await body.waitFor();
    assert.equal(
      await page.evaluate(`getComputedStyle(document.querySelector('.message-body pre')).maxHeight`),
      'none',
    );
    const bodyFocused = `document.activeElement?.classList.contains('message-body') ?? false`;
    await page.getByRole('button', { name: `Details of delivery ${deliveryId}` }).focus();
    for (let i = 0; i < 3 && !(await page.evaluate(bodyFocused)); i++) {
      await page.keyboard.press('Tab');
    }
    assert.ok(await page.evaluate(bodyFocused), 'Tab reaches the message body');
    await s.screenshot('12-test-delivered');
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  it('shows a failing receiver’s retries, every attempt with its status and response', async () => {
    receiver.script = () => ({ status: 503, body: 'packing house ERP is down for maintenance' });
    await raise();
    const row = logRows().first();
    await row.locator('th code', { hasText: 'harvest.batch.created' }).waitFor();
    await row.getByText('Retrying').waitFor();
    await s.screenshot('13-retrying');
    await row.getByText('Failed').waitFor({ timeout: 30_000 });
    assert.equal(await row.locator('td').nth(2).textContent(), '7', 'seven attempts in all');

    const deliveryId = (await row.getAttribute('data-delivery-id'))!;
    await page.getByRole('button', { name: `Details of delivery ${deliveryId}` }).click();
    const attempts = page.locator(`#delivery-${deliveryId} .attempt`);
    await attempts.nth(6).waitFor();
    assert.equal(await attempts.count(), 7);
    assert.match((await attempts.first().textContent()) ?? '', /503.*packing house ERP is down/s);
    await s.screenshot('14-failed-after-retries');
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.evaluate('window.scrollTo(0, 0)');
    await s.screenshot('readme-webhooks-screen', { fullPage: false }); // docs/webhooks-screen.png
  });

  it('redelivers a delivery: same id and body, one more attempt', async () => {
    receiver.script = () => undefined; // 200 again
    const before = receiver.requests.length;
    const row = logRows().first();
    const deliveryId = (await row.getAttribute('data-delivery-id'))!;
    await page.getByRole('button', { name: `Redeliver ${deliveryId}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Delivery ${deliveryId} queued again.` })
      .waitFor();
    // The Redeliver button goes while the delivery is queued: the focus moves to its row's Details.
    await waitInPage(
      page,
      (controls) => (globalThis as any).document.activeElement?.getAttribute('aria-controls') === controls,
      `delivery-${deliveryId}`,
      `the focus on the Details of delivery ${deliveryId}`,
    );
    await row.getByText('Succeeded').waitFor();
    const requests = await receiver.waitForRequests(before + 1);
    const again = requests[before]!;
    assert.equal(again.headers['x-service-delivery'], deliveryId);
    const original = requests.find((r) => r.headers['x-service-delivery'] === deliveryId)!;
    assert.equal(again.body, original.body, 'the same bytes');
    await s.screenshot('15-redelivered');
  });

  it('rotates the secret after a confirmation; the old one stops signing', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape'); // cancelling changes nothing
    await dialog.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    // The previous secret keeps signing for 24 hours unless told otherwise (webhooks-controls.test.ts).
    await page.getByRole('dialog').getByLabel('Stop it at once').check();
    await s.screenshot('16-rotate-confirmation');
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('Secret rotated. The previous secret no longer signs messages.').first().waitFor();
    await waitForFocus(page, 'h2', 'Signing secret');
    const rotated = await page.getByLabel('Signing secret', { exact: true }).inputValue();
    assert.notEqual(rotated, secret);
    assert.match(rotated, /^whsec_/);
    await s.screenshot('17-secret-rotated');

    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Send test' }).click();
    const [sent] = (await receiver.waitForRequests(before + 1)).slice(before);
    const signedWith = (key: string) =>
      `sha256=${createHmac('sha256', key).update(`${sent!.headers['x-service-timestamp']}.${sent!.body}`).digest('hex')}`;
    assert.equal(sent!.headers['x-service-signature'], signedWith(rotated));
    assert.notEqual(sent!.headers['x-service-signature'], signedWith(secret));
    secret = rotated;
    await page.getByRole('button', { name: 'I have saved the secret' }).click();
    await waitForFocus(page, 'h1', endpointUrl);
  });

  it('pauses after five fully failed deliveries, holds new ones, and re-enables to send them', async () => {
    receiver.script = () => ({ status: 500, body: 'no' });
    await Promise.all([raise(), raise(), raise(), raise(), raise()]);
    await page
      .getByRole('heading', { name: 'Sending to this address is paused' })
      .waitFor({ timeout: 40_000 });
    // The streak may pass five: deliveries running side by side can all fail before the pause.
    await page.getByText(/Paused after ([5-9]|\d\d) deliveries in a row failed every attempt/).waitFor();
    await raise(); // arrives while paused: held

    // The screen states the API's count of held deliveries.
    const token = (await page.evaluate(
      'JSON.parse(sessionStorage.getItem("furrow.session")).token',
    )) as string;
    const endpointId = (await page.locator('.settings dd code').last().textContent())!;
    const held = (await request(t.url, 'GET', `/api/webhooks/${endpointId}`, { token })).body.data.held_count;
    assert.ok(held >= 1, `held deliveries: ${held}`);
    const heldText = held === 1 ? '1 delivery is held' : `${held} deliveries are held`;
    await page.getByText(`${heldText} and will be sent when you re-enable it.`).waitFor();
    await s.screenshot('18-paused');

    // The list says it too.
    await page.getByRole('link', { name: 'All webhooks' }).click();
    const listRow = page.getByRole('row', { name: new RegExp(endpointUrl) });
    await listRow.getByText('Paused', { exact: true }).waitFor();
    await listRow.getByText(new RegExp(heldText)).waitFor();
    await s.screenshot('19-list-paused');
    assert.deepEqual(await accessibilityViolations(page), []);
    await listRow.getByRole('link', { name: endpointUrl }).click();

    receiver.script = () => undefined;
    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Re-enable' }).click();
    const dialog = page.getByRole('dialog', { name: 'Re-enable this webhook?' });
    await dialog
      .getByText(
        held === 1
          ? `1 held delivery will be sent to ${endpointUrl}.`
          : `${held} held deliveries will be sent to ${endpointUrl}, oldest first.`,
      )
      .waitFor();
    await s.screenshot('20-reenable-confirmation');
    assert.deepEqual(await accessibilityViolations(page), []);
    await dialog.getByRole('button', { name: 'Re-enable' }).click();
    await page.getByRole('status').filter({ hasText: 'Sending re-enabled.' }).waitFor();
    await waitForFocus(page, 'button', 'Send test'); // the paused notice and its button are gone
    await receiver.waitForRequests(before + held);
    await logRows().first().getByText('Succeeded').waitFor();
    await page.locator('.page-title .badge', { hasText: 'Active' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Sending to this address is paused' }).count(), 0);
    await page.locator('table.deliveries .badge', { hasText: 'Held' }).first().waitFor({ state: 'detached' });
  });

  it('edits the events and description', async () => {
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit receiving address' }).waitFor();
    await page.getByRole('checkbox', { name: /A sensor crosses a threshold/ }).uncheck();
    await page.getByRole('checkbox', { name: /A sensor alert is back to normal/ }).uncheck();
    await page.getByRole('checkbox', { name: /A device stops reporting/ }).uncheck();
    await page.getByRole('checkbox', { name: /A silent device reports again/ }).uncheck();
    await page.getByRole('checkbox', { name: /A harvest batch is declared/ }).uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Select at least one event.').waitFor();

    await page.getByRole('checkbox', { name: /A harvest batch is declared/ }).check();
    await page.getByLabel('Description (optional)').fill('Harvest batches for the packing house');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved.').waitFor();
    const settings = page.locator('.settings');
    await settings.getByText('Harvest batches for the packing house').waitFor();
    assert.deepEqual(await settings.locator('.events code').allTextContents(), ['harvest.batch.created']);
    await s.screenshot('21-detail');
  });

  it('shows the list with the last delivery, in Vietnamese too (plain words, dates first), readable at phone width', async () => {
    await page.getByRole('link', { name: 'All webhooks' }).click();
    const listRow = page.getByRole('row', { name: new RegExp(endpointUrl) });
    await listRow.getByText('Succeeded').waitFor();
    await listRow.getByText('Packing house', { exact: false }).waitFor();
    assert.doesNotMatch(await plainText(page), /endpoint/i, 'plain words in English too');
    await s.screenshot('22-list');

    await page.getByLabel('Language').selectOption('vi');
    await page.getByRole('columnheader', { name: 'Lần gửi gần nhất' }).waitFor();
    await listRow.getByText('Thành công').waitFor();
    assert.equal(await page.title(), 'Webhook · Furrow');
    assert.match(
      (await listRow.locator('time').textContent()) ?? '',
      /^\d{1,2} thg \d{1,2}, \d{4} lúc \d\d:\d\d:\d\d GMT\+7$/,
      'Vietnamese dates read date first',
    );
    assert.doesNotMatch(await plainText(page), /endpoint|header/i);
    await s.screenshot('22-list-vietnamese');
    assert.deepEqual(await accessibilityViolations(page), []);

    // The detail page, a delivery opened, at phone width, in Vietnamese.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: endpointUrl }).click();
    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();
    const first = logRows().first();
    const deliveryId = (await first.getAttribute('data-delivery-id'))!;
    await page.getByRole('button', { name: `Chi tiết lần gửi ${deliveryId}` }).click();
    await page.locator(`#delivery-${deliveryId} .request-headers`).waitFor();
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the request headers fit a phone');
    assert.doesNotMatch(await plainText(page), /endpoint|header/i);
    await s.screenshot('23-detail-phone-vietnamese-top', { fullPage: false });
    await page.locator(`#delivery-${deliveryId} .request-headers`).scrollIntoViewIfNeeded();
    await s.screenshot('23-detail-phone-vietnamese-headers', { fullPage: false });
    assert.deepEqual(await accessibilityViolations(page), []);

    // A refusal in plain Vietnamese, next to the field.
    await page.getByRole('link', { name: 'Sửa' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sửa địa chỉ nhận sự kiện' }).waitFor();
    await page.getByLabel('Địa chỉ nhận').fill('https://192.168.1.20/hooks');
    await page.getByRole('button', { name: 'Lưu thay đổi' }).click();
    const urlError = page.locator('#endpoint-url-error');
    await urlError.waitFor();
    assert.equal(
      await urlError.textContent(),
      'Địa chỉ này (192.168.1.20) thuộc mạng nội bộ. Furrow chỉ gửi được tới máy chủ công khai trên Internet.',
    );
    await s.screenshot('24-refused-phone-vietnamese', { fullPage: false });
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.getByRole('link', { name: 'Hủy' }).click();
    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();

    await page.getByLabel('Ngôn ngữ').selectOption('en');
    await page.getByRole('button', { name: 'Send test' }).waitFor();
    const overflow = await sidewaysOverflow(page);
    assert.ok(overflow <= 0, `no sideways scrolling at phone width (${overflow}px too wide)`);
    await s.screenshot('23-detail-phone', { fullPage: false });
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('refreshes the list by itself, and offers "Try again" when it cannot load', async () => {
    await page.getByRole('link', { name: 'All webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const token = (await page.evaluate(
      'JSON.parse(sessionStorage.getItem("furrow.session")).token',
    )) as string;
    const added = await request(t.url, 'POST', '/api/webhooks', {
      token,
      json: { url: `${receiver.origin}/second`, events: ['*'], description: 'Added elsewhere' },
    });
    assert.equal(added.status, 201);
    await page.getByRole('link', { name: `${receiver.origin}/second` }).waitFor({ timeout: 20_000 }); // no reload
    await request(t.url, 'DELETE', `/api/webhooks/${added.body.data.id}`, { token });

    // The server fails once: the error says so in plain words and "Try again" loads the list.
    await page.route('**/api/webhooks', (route) =>
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
    await s.screenshot('25-list-error');
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.unroute('**/api/webhooks');
    await failed.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('link', { name: endpointUrl }).waitFor();
    await page.getByRole('link', { name: `${receiver.origin}/second` }).waitFor({ state: 'detached' });
    // The refused load was this test's doing.
    s.problems.splice(0, s.problems.length, ...s.problems.filter((p) => !/status of 503/.test(p)));
    await page.getByRole('link', { name: endpointUrl }).click();
    await page.getByRole('heading', { level: 1, name: endpointUrl }).waitFor();
  });

  it('deletes the endpoint after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this webhook?' });
    await dialog.getByText(endpointUrl, { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText(`The webhook ${endpointUrl} was deleted.`).waitFor();
    await page.getByText('No webhooks yet').waitFor();
    const left = await request(t.url, 'GET', '/api/webhooks', {
      token: (await page.evaluate('JSON.parse(sessionStorage.getItem("furrow.session")).token')) as string,
    });
    assert.deepEqual(left.body, []);
    await s.screenshot('24-deleted');
  });
});
