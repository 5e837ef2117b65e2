// The farm app's Sensors section (/manage/sensors) in a real headless Chromium against a real
// Furrow app: devices, a rule and a day of readings are sent through the API as a gateway would,
// one reading raising an alert. Every test fails on a console error (a CSP refusal included) and
// saves screenshots under test-output/sensors/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { client } from '../support/app.js';
import {
  assertAccessible,
  sidewaysOverflow,
  signIn,
  TEST_OUTPUT_DIR,
  useScreenSuite,
  waitForFocus,
  waitForFocusedId,
  waitInPage,
} from '../support/browser.js';
import { loginToken } from '../support/factories.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'sensors');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const MINUTE = 60_000;

type Api = ReturnType<typeof client>;

/** A value as the app writes it in English: "22.4 °C", "7.25". */
function shown(value: number, unit = '°C'): string {
  const number = new Intl.NumberFormat('en-GB', {
    maximumFractionDigits: Math.abs(value) < 10 ? 2 : 1,
  }).format(value);
  return `${number} ${unit}`;
}

/** How many pixels of the canvas are painted (uPlot drew something). */
async function paintedPixels(page: Page, selector: string): Promise<number> {
  return (await page.evaluate(`(() => {
    const canvas = document.querySelector(${JSON.stringify(selector)});
    if (!canvas) return 0;
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
    return painted;
  })()`)) as number;
}

describe('Sensors section [sqlite, chromium]', () => {
  const suite = useScreenSuite(OUTPUT);
  const { screen } = suite;
  let owner: Api;
  let greenhouse: { id: number; code: string };
  let now: number;

  /** Readings of the greenhouse sensor, as its gateway sends them. */
  const send = async (readings: { metric: string; value: number; at?: number }[]) => {
    const res = await owner.post('/api/iot/readings', {
      json: {
        readings: readings.map((r) => ({
          device_code: greenhouse.code,
          metric: r.metric,
          value: r.value,
          ...(r.at === undefined ? {} : { recorded_at: new Date(r.at).toISOString() }),
        })),
      },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };

  before(async () => {
    owner = client(suite.t.url, await loginToken(suite.t.url, suite.farm.code, suite.farm.owner));
    now = suite.t.clock.now();
    const farm = (await owner.post('/api/farms', { json: { name: 'Home farm' } })).body[0];
    const zone = (await owner.post('/api/zones', { json: { name: 'Greenhouse A', farm_id: farm.id } }))
      .body[0];
    const device = async (json: Record<string, unknown>) => {
      const res = await owner.post('/api/iot/devices', { json });
      assert.equal(res.status, 201, res.text);
      return res.body[0];
    };
    greenhouse = await device({ code: 'gh-a-01', name: 'Greenhouse A sensor', zone_id: zone.id });
    await device({ code: 'orchard-02', name: 'Orchard soil probe' });
    const rule = await owner.post('/api/iot/rules', {
      json: {
        device_id: greenhouse.id,
        metric: 'temperature',
        operator: 'gt',
        threshold: 35,
        severity: 'critical',
      },
    });
    assert.equal(rule.status, 201, rule.text);

    // A day of readings: temperature every 30 minutes (38 °C three hours ago raises the alert, the
    // later ones are back to normal and resolve it), humidity every hour.
    const readings: { metric: string; value: number; at: number }[] = [];
    for (let k = 48; k >= 1; k--) {
      const value = k === 6 ? 38 : Math.round((24 + 5 * Math.sin(k / 7)) * 10) / 10;
      readings.push({ metric: 'temperature', value, at: now - k * 30 * MINUTE });
      if (k % 2 === 0) readings.push({ metric: 'humidity', value: 60 + (k % 10), at: now - k * 30 * MINUTE });
    }
    const answer = await send(readings);
    assert.equal(answer.accepted, readings.length);
    assert.equal(
      answer.results.flatMap((r: { alert_ids?: number[] }) => r.alert_ids ?? []).length,
      1,
      'one alert',
    );
  });

  it('owner: devices, a device’s charts by period, a rule with a field error, acknowledging, a new alert', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/sensors');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Sensors' }).waitFor();

    // The list: status in words, last heartbeat, the alert.
    const devices = page.locator('table.devices tbody tr');
    await devices.first().waitFor();
    const greenhouseRow = devices.filter({ hasText: 'Greenhouse A sensor' });
    await greenhouseRow.getByText('Online').waitFor();
    await greenhouseRow.getByText('Greenhouse A', { exact: true }).waitFor();
    const orchardRow = devices.filter({ hasText: 'Orchard soil probe' });
    await orchardRow.getByText('Offline').waitFor();
    await orchardRow.getByText('Never heard from').waitFor();
    const firstAlert = page.locator('.alert-item').filter({ hasText: 'Temperature: 38 °C' });
    await firstAlert.waitFor();
    await firstAlert.getByText('Critical').waitFor();
    // The next reading, half an hour later, was back below the threshold: the alert is resolved.
    await firstAlert.getByText('Back to normal', { exact: true }).waitFor();
    await firstAlert.getByText('Rule: Temperature above 35 °C').waitFor();
    await page.locator('table.rules').getByText('Temperature above 35 °C').waitFor();
    await assertAccessible(page, 'list');
    await screenshot('01-owner-desktop-list');

    // The device's page: a chart per measurement, drawn, with its numbers in a table.
    await greenhouseRow.getByRole('link', { name: 'Greenhouse A sensor' }).click();
    await waitForFocus(page, 'h1', 'Greenhouse A sensor');
    const temperature = page
      .locator('.reading-chart')
      .filter({ has: page.getByRole('heading', { name: /^Temperature/ }) });
    await temperature
      .locator('.chart-summary')
      .getByText(/^Last 24 hours: lowest/)
      .waitFor();
    await page.locator('.reading-chart').filter({ hasText: 'Humidity' }).locator('canvas').waitFor();
    assert.ok((await paintedPixels(page, '.reading-chart canvas')) > 500, 'the chart is drawn');

    const series = async (bucket: string) =>
      (
        await owner.get(
          `/api/iot/devices/${greenhouse.id}/readings/series?metric=temperature&bucket=${bucket}`,
        )
      ).body;
    const checkNumbers = async (bucket: string) => {
      const points = (await series(bucket)) as { min: number; avg: number; max: number; count: number }[];
      const rows = temperature.locator('table.numbers-table tbody tr');
      await waitInPage(
        page,
        (n) =>
          (globalThis as any).document
            .querySelector('.reading-chart')
            ?.querySelectorAll('table.numbers-table tbody tr').length === n,
        points.length,
        `${points.length} rows in the numbers table`,
      );
      const averages = await rows.locator('td:nth-child(3)').allTextContents();
      assert.deepEqual(
        averages,
        points.map((p) => shown(p.avg)),
        `the table holds the ${bucket} series`,
      );
      const highest = Math.max(...points.map((p) => p.max));
      assert.match(
        await temperature.locator('.chart-summary').innerText(),
        new RegExp(`highest ${shown(highest)}`),
      );
    };
    await temperature.getByText('Dotted line: alert limit (35 °C).').waitFor();
    await temperature.getByText('Show the numbers').click();
    await checkNumbers('1m');
    assert.equal(await temperature.locator('table.numbers-table tbody tr').count(), 48);
    await assertAccessible(page, 'device page, 24 hours, numbers shown');
    await screenshot('02-owner-desktop-device-24h');

    await page.getByRole('radio', { name: 'Last 7 days' }).check();
    await temperature
      .locator('.chart-summary')
      .getByText(/^Last 7 days: lowest/)
      .waitFor();
    await checkNumbers('1h');
    assert.ok((await paintedPixels(page, '.reading-chart canvas')) > 500, 'the 7-day chart is drawn');
    await assertAccessible(page, 'device page, 7 days');
    await screenshot('03-owner-desktop-device-7d');

    // A rule: a measurement name the API refuses is shown next to its field, then fixed.
    await page.getByRole('link', { name: 'All sensors' }).click();
    await waitForFocus(page, 'h1', 'Sensors');
    await page.getByRole('link', { name: 'Add rule' }).click();
    await waitForFocus(page, 'h1', 'Add an alert rule');
    await page.getByLabel('Watch').selectOption({ label: 'Greenhouse A sensor' });
    await page.getByLabel('Measurement').fill('Soil moisture');
    await page.getByLabel('Alert when the value is').selectOption('lt');
    await page.getByLabel('Limit').fill('20');
    await page.getByLabel('Severity').selectOption('warning');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page
      .locator('#rule-metric-error')
      .getByText('Use lower-case letters, digits, _ and . without spaces')
      .waitFor();
    await waitForFocusedId(page, 'rule-metric');
    assert.equal(await page.getByLabel('Limit').inputValue(), '20', 'what was typed is kept');
    assert.equal(await page.locator('#rule-metric').getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'rule form with a field error');
    await screenshot('04-owner-desktop-rule-error');

    await page.getByLabel('Measurement').fill('soil_moisture');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await waitForFocus(page, 'h1', 'Sensors');
    await page.getByRole('status').getByText('Alert rule added.').waitFor();
    await page.locator('table.rules').getByText('Soil moisture below 20 %').waitFor();

    // Deleting a rule asks first; its row goes, and the focus with it to the rules' heading.
    await page.getByRole('button', { name: 'Delete the rule: Soil moisture below 20 %' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this alert rule?' });
    await dialog.getByText('No more alerts will be raised when Soil moisture below 20 %.').waitFor();
    await assertAccessible(page, 'delete dialog');
    await dialog.getByRole('button', { name: 'Delete rule' }).click();
    await page.getByRole('status').getByText('The alert rule was deleted.').waitFor();
    await waitForFocus(page, 'h2', 'Alert rules');
    assert.equal(await page.locator('table.rules').getByText('Soil moisture below 20 %').count(), 0);

    // Acknowledge: the button's place says who did, and takes the focus; the result is announced.
    await firstAlert
      .getByRole('button', { name: /^Acknowledge: Temperature: 38 °C on Greenhouse A sensor/ })
      .click();
    await waitForFocus(page, 'p', /Acknowledged by Ana Tran/);
    await page
      .getByRole('status')
      .getByText(/^Alert acknowledged: Temperature: 38 °C/)
      .waitFor();
    assert.equal(await firstAlert.getByRole('button', { name: /^Acknowledge/ }).count(), 0);
    await assertAccessible(page, 'alert acknowledged');
    await screenshot('05-owner-desktop-acknowledged');

    // A new crossing, sent by the gateway now, shows without a reload.
    await send([{ metric: 'temperature', value: 39.5 }]);
    const newAlert = page.locator('.alert-item').filter({ hasText: 'Temperature: 39.5 °C' });
    await newAlert.waitFor({ timeout: 25_000 });
    await newAlert.getByRole('button', { name: /^Acknowledge/ }).waitFor();
    assert.equal(await page.locator('.alert-item').count(), 2);
    await assertAccessible(page, 'a new alert');
    await screenshot('06-owner-desktop-new-alert');

    // A device: a code with a space is refused next to its field; fixed, the device has its page;
    // deleting it asks first and comes back to the list.
    await page.getByRole('link', { name: 'Add device' }).click();
    await waitForFocus(page, 'h1', 'Add a device');
    await page.getByLabel('Device code').fill('pump 1');
    await page.getByLabel('Name (optional)').fill('Pump house probe');
    await page.getByLabel('Zone').selectOption({ label: 'Greenhouse A' });
    await page.getByRole('button', { name: 'Add device' }).click();
    await page
      .locator('#device-code-error')
      .getByText('Use only letters, digits and _ . : - without spaces.')
      .waitFor();
    await waitForFocusedId(page, 'device-code');
    assert.equal(await page.getByLabel('Name (optional)').inputValue(), 'Pump house probe');
    await assertAccessible(page, 'device form with a field error');
    await screenshot('07-owner-desktop-device-error');
    await page.getByLabel('Device code').fill('pump-1');
    await page.getByRole('button', { name: 'Add device' }).click();
    await waitForFocus(page, 'h1', 'Pump house probe');
    await page.getByRole('status').getByText('Device Pump house probe added.').waitFor();
    await page.getByText('No readings from this device yet.', { exact: false }).waitFor();
    await page
      .locator('.page-title')
      .getByText(/Offline/)
      .waitFor();
    await assertAccessible(page, 'a new device');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this device?' })
      .getByRole('button', { name: 'Delete device' })
      .click();
    await waitForFocus(page, 'h1', 'Sensors');
    await page.getByRole('status').getByText('The device Pump house probe was deleted.').waitFor();
    assert.equal(await page.locator('table.devices').getByText('Pump house probe').count(), 0);

    // The same pages at phone width, in English.
    await page.setViewportSize(PHONE);
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the list fits a phone');
    await screenshot('08-owner-phone-list');
    await page.getByRole('link', { name: 'Greenhouse A sensor' }).first().click();
    await waitForFocus(page, 'h1', 'Greenhouse A sensor');
    await temperature.locator('.chart-summary').waitFor();
    await page.locator('.reading-chart canvas').first().waitFor();
    assert.ok(
      await page.getByRole('radio', { name: 'Last 7 days' }).isChecked(),
      'the chosen period is kept from device to device',
    );
    // The chart follows its box: no wider than the phone's screen.
    const canvasWidth = Number(
      await page.evaluate(`document.querySelector('.reading-chart canvas').getBoundingClientRect().width`),
    );
    assert.ok(
      canvasWidth > 200 && canvasWidth <= PHONE.width - 20,
      `the chart fits the phone (${canvasWidth}px)`,
    );
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the device page fits a phone');
    await assertAccessible(page, 'device page at phone width');
    await screenshot('09-owner-phone-device');
  });

  it('staff, on a phone in Vietnamese: reads everything, acknowledges, is offered no owner action', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/sensors');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.staff, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Cảm biến' }).waitFor();
    await page.locator('table.devices').getByText('Đang hoạt động').waitFor();
    await page.locator('table.devices').getByText('Mất kết nối').waitFor();
    await page.locator('.alert-item').first().waitFor();
    await page.getByText('Nhiệt độ trên 35 °C').first().waitFor();
    for (const name of ['Thêm thiết bị', 'Thêm quy tắc', 'Sửa', 'Xóa']) {
      assert.equal(await page.getByRole('link', { name }).count(), 0, `no "${name}" link for staff`);
      assert.equal(await page.getByRole('button', { name }).count(), 0, `no "${name}" button for staff`);
    }
    assert.equal(await page.getByRole('button', { name: /^Sửa quy tắc|^Xóa quy tắc/ }).count(), 0);
    assert.ok((await sidewaysOverflow(page)) <= 0, 'fits a phone');
    await assertAccessible(page, 'staff list');
    await screenshot('10-staff-phone-vi-list');

    // The API lets anyone of the farm acknowledge: staff are offered it.
    const open = page
      .locator('.alert-item')
      .filter({ has: page.getByRole('button', { name: /^Xác nhận đã biết/ }) });
    const before = await open.count();
    assert.ok(before >= 1, 'an alert waits for acknowledgement');
    await open
      .first()
      .getByRole('button', { name: /^Xác nhận đã biết/ })
      .click();
    await waitForFocus(page, 'p', /đã xác nhận/);
    await page
      .getByRole('status')
      .getByText(/^Đã xác nhận cảnh báo/)
      .waitFor();
    await assertAccessible(page, 'staff acknowledged');

    await page.getByRole('link', { name: 'Greenhouse A sensor' }).first().click();
    await waitForFocus(page, 'h1', 'Greenhouse A sensor');
    await page
      .locator('.chart-summary')
      .first()
      .getByText(/^24 giờ qua: thấp nhất/)
      .waitFor();
    await page.locator('.reading-chart canvas').first().waitFor();
    assert.equal(await page.getByRole('link', { name: 'Sửa' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Xóa' }).count(), 0);
    await page.getByText('Xem các con số').first().click();
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the device page fits a phone');
    await assertAccessible(page, 'staff device page');
    await screenshot('11-staff-phone-vi-device');

    await page.setViewportSize(DESKTOP);
    await page.getByRole('link', { name: 'Tất cả cảm biến' }).click();
    await waitForFocus(page, 'h1', 'Cảm biến');
    await assertAccessible(page, 'staff desktop');
    await screenshot('12-staff-desktop-vi-list');
  });
});
