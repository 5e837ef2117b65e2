// The farm app's Sensors section with real devices, in a real headless Chromium against a real
// Furrow app: a ChirpStack and a The Things Stack event are posted over HTTP with an API key as the
// network servers do, and the owner adopts one sensor and dismisses the other in the app; then the
// Connect page (addresses to copy, an MQTT broker added, refused, changed and deleted), a rule with
// a back-to-normal value and a minimum duration whose alert is raised and resolved by readings, a
// device's DevEUI, and the e-mail alert settings. Staff are offered none of the owner's pages.
// Every test fails on a console error and saves screenshots under test-output/sensors-devices/.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { createMqttSubscriber } from '../../src/modules/iot/mqtt-subscriber.js';
import { systemClock } from '../../src/platform/clock.js';
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
import { publish, SHARED_BROKER_URL, startTestBroker, uniqueTopicPrefix } from '../support/mqtt.js';

const OUTPUT = join(TEST_OUTPUT_DIR, 'sensors-devices');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const MINUTE = 60_000;

const CHIRPSTACK_EUI = '70b3d57ed0012345';
const TTS_EUI = 'a84041000181c2d3';

type Api = ReturnType<typeof client>;

describe('Sensors section with real devices [sqlite, chromium]', () => {
  // The MQTT broker added in the app is on this machine, which the public-address rule allows here.
  const suite = useScreenSuite(OUTPUT, { env: { MQTT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
  const { screen } = suite;
  let owner: Api;
  let ingestKey: string;
  let zoneId: number;

  /** A ChirpStack v4 "up" event as its HTTP integration posts it, with the farm's API key. */
  const chirpstackUp = async (object: Record<string, unknown>, devEui = CHIRPSTACK_EUI) => {
    const res = await client(suite.t.url, ingestKey).post('/api/iot/ingest/chirpstack?event=up', {
      json: {
        deduplicationId: randomUUID(),
        time: new Date(suite.t.clock.now()).toISOString(),
        deviceInfo: {
          tenantName: 'Farm',
          applicationName: 'sensors',
          deviceName: 'greenhouse-b-soil',
          devEui,
        },
        fPort: 2,
        object,
      },
    });
    return res;
  };

  /** A The Things Stack v3 uplink message as its webhook integration posts it. */
  const ttsUplink = async (decoded: Record<string, unknown>, devEui = TTS_EUI) =>
    client(suite.t.url, ingestKey).post('/api/iot/ingest/tts', {
      json: {
        end_device_ids: {
          device_id: 'orchard-probe',
          application_ids: { application_id: 'farm' },
          dev_eui: devEui.toUpperCase(),
        },
        correlation_ids: [`as:up:${randomUUID()}`],
        received_at: new Date(suite.t.clock.now()).toISOString(),
        uplink_message: { f_port: 1, decoded_payload: decoded },
      },
    });

  const adoptedDevice = async () => {
    const devices = (await owner.get('/api/iot/devices')).body as { id: number; code: string }[];
    const device = devices.find((d) => d.code === 'gh-b-02');
    assert.ok(device, 'the adopted device');
    return device;
  };

  before(async () => {
    owner = client(suite.t.url, await loginToken(suite.t.url, suite.farm.code, suite.farm.owner));
    const farm = (await owner.post('/api/farms', { json: { name: 'Home farm' } })).body[0];
    zoneId = (await owner.post('/api/zones', { json: { name: 'Greenhouse B', farm_id: farm.id } })).body[0]
      .id;
    const key = await owner.post('/api/auth/api-keys', { json: { name: 'ChirpStack', role: 'staff' } });
    assert.equal(key.status, 201, key.text);
    const made = Array.isArray(key.body) ? key.body[0] : (key.body.data ?? key.body);
    ingestKey = made.key;
    // The owner has an e-mail address, the staff member none.
    const email = await owner.put(`/api/users/${suite.farm.owner.id}`, {
      json: { email: 'ana@example.com' },
    });
    assert.ok(email.status < 300, email.text);
  });

  it('owner: new devices from the network servers, adopt one, dismiss the other, its readings', async () => {
    const first = await chirpstackUp({ temperature: 21.5, humidity: 60 });
    assert.equal(first.status, 202, first.text);
    const second = await ttsUplink({ soil_moisture: 31 });
    assert.equal(second.status, 202, second.text);

    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/sensors');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Sensors' }).waitFor();

    // The Sensors page tells of them and counts them on the way to them.
    await page.getByText('2 new devices are sending data but are not added yet.').waitFor();
    await page.getByRole('link', { name: 'New devices (2 waiting)' }).waitFor();
    await assertAccessible(page, 'sensors page with new devices');
    await screenshot('01-owner-desktop-sensors-notice');

    await page.getByRole('link', { name: 'See new devices' }).click();
    await waitForFocus(page, 'h1', 'New devices');
    const chirp = page.locator('.card.unclaimed').filter({ hasText: CHIRPSTACK_EUI });
    await chirp.getByRole('heading', { name: 'greenhouse-b-soil' }).waitFor();
    await chirp.getByText('ChirpStack', { exact: true }).waitFor();
    await chirp.getByText('Temperature 21.5 °C, Humidity 60 %').waitFor();
    await chirp.getByText(/^1 since /).waitFor();
    const tts = page.locator('.card.unclaimed').filter({ hasText: TTS_EUI });
    await tts.getByText('The Things Stack', { exact: true }).waitFor();
    await tts.getByText('Soil moisture 31 %').waitFor();
    await assertAccessible(page, 'new devices');
    await screenshot('02-owner-desktop-new-devices');

    // Dismissing asks first; the card goes.
    await tts.getByRole('button', { name: 'Dismiss: orchard-probe' }).click();
    const dialog = page.getByRole('dialog', { name: 'Dismiss this device?' });
    await dialog
      .getByText('orchard-probe leaves this list. If it sends again, it comes back here.')
      .waitFor();
    await assertAccessible(page, 'dismiss dialog');
    await dialog.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByRole('status').getByText('orchard-probe was dismissed.').waitFor();
    await tts.waitFor({ state: 'detached' });
    const listed = (await owner.get('/api/iot/unclaimed-devices')).body;
    const euis = (Array.isArray(listed) ? listed : listed.data).map((d: { dev_eui: string }) => d.dev_eui);
    assert.deepEqual(euis, [CHIRPSTACK_EUI], 'the dismissed device left the list');

    // Adopting: the form starts from the network's name; the device page follows.
    await chirp.getByRole('link', { name: 'Add this device: greenhouse-b-soil' }).click();
    await waitForFocus(page, 'h1', 'Add a new device');
    assert.equal(await page.getByLabel('Name (optional)').inputValue(), 'greenhouse-b-soil');
    assert.equal(await page.getByLabel('Device code').inputValue(), 'greenhouse-b-soil');
    await page.getByLabel('Name (optional)').fill('Greenhouse B soil');
    await page.getByLabel('Device code').fill('gh b 02');
    await page.getByLabel('Zone').selectOption({ label: 'Greenhouse B' });
    await page.getByRole('button', { name: 'Add device' }).click();
    // A code the API refuses is said next to its field.
    await page
      .locator('#adopt-code-error')
      .getByText('Use only letters, digits and _ . : - without spaces.')
      .waitFor();
    await waitForFocusedId(page, 'adopt-code');
    await assertAccessible(page, 'adopt form with an error');
    await screenshot('03-owner-desktop-adopt-error');
    await page.getByLabel('Device code').fill('gh-b-02');
    await page.getByRole('button', { name: 'Add device' }).click();
    await waitForFocus(page, 'h1', 'Greenhouse B soil');
    await page
      .getByRole('status')
      .getByText('Device Greenhouse B soil added. Its readings show here from now on.')
      .waitFor();
    const facts = page.locator('.facts');
    await facts.getByText(CHIRPSTACK_EUI).waitFor();
    await facts.getByText('Greenhouse B', { exact: true }).waitFor();
    const device = (await owner.get('/api/iot/devices')).body.find(
      (d: { dev_eui: string | null }) => d.dev_eui === CHIRPSTACK_EUI,
    );
    assert.equal(device.code, 'gh-b-02');
    assert.equal(device.zone_id, zoneId);

    // Its next event is stored: the reading shows on its page.
    const next = await chirpstackUp({ temperature: 23.4, humidity: 58 });
    assert.equal(next.status, 200, next.text);
    assert.equal(next.body.data.readings, 2);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Greenhouse B soil' }).waitFor();
    await page
      .locator('.reading-chart')
      .filter({ hasText: 'Temperature' })
      .getByText(/^Latest 23.4 °C/)
      .waitFor();
    await page.locator('.page-title').getByText('Online').waitFor();
    await assertAccessible(page, 'adopted device');
    await screenshot('04-owner-desktop-adopted-device');

    // No new device waits now: the Sensors page says nothing of them.
    await page.getByRole('link', { name: 'All sensors' }).click();
    await waitForFocus(page, 'h1', 'Sensors');
    await page.getByRole('link', { name: 'New devices', exact: true }).waitFor();
    assert.equal(await page.getByText(/new devices? (is|are) sending data/).count(), 0);

    // The same at phone width.
    await page.setViewportSize(PHONE);
    await chirpstackUp({ temperature: 20 }, 'a84041000181c2ff');
    await page.getByRole('link', { name: 'New devices (1 waiting)' }).click();
    await waitForFocus(page, 'h1', 'New devices');
    await page.locator('.card.unclaimed').getByText('Temperature 20 °C').waitFor();
    await assertFits(page, 'new devices on a phone');
    await assertAccessible(page, 'new devices on a phone');
    await screenshot('05-owner-phone-new-devices');
    await page.getByRole('link', { name: /^Add this device/ }).click();
    await waitForFocus(page, 'h1', 'Add a new device');
    await assertFits(page, 'adopt form on a phone');
    await screenshot('06-owner-phone-adopt');
  });

  it('owner: connect page, MQTT brokers added (one connected, one refusing the password), changed, deleted', async () => {
    const topics = uniqueTopicPrefix('farm-app');
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/sensors');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Sensors' }).waitFor();
    await page.getByRole('link', { name: 'Connect sensors' }).click();
    await waitForFocus(page, 'h1', 'Connect sensors');

    // The addresses to paste into the network servers, copied with a button.
    const chirpstackUrl = `${suite.t.url}/api/iot/ingest/chirpstack`;
    assert.equal(
      await page.getByRole('textbox', { name: 'Address for ChirpStack' }).inputValue(),
      chirpstackUrl,
    );
    assert.equal(
      await page.getByRole('textbox', { name: 'Base address for The Things Stack' }).inputValue(),
      `${suite.t.url}/api/iot/ingest/tts`,
    );
    await page.getByRole('button', { name: 'Copy: Address for ChirpStack' }).click();
    await page
      .locator('.copy-field')
      .filter({ hasText: 'Address for ChirpStack' })
      .getByText('Copied.')
      .waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), chirpstackUrl);
    await page.getByText('Under Headers, add Authorization with the value Bearer and your key.').waitFor();
    await page.getByRole('link', { name: 'Make a key for programs' }).waitFor();
    await page.getByRole('heading', { name: 'No MQTT broker yet' }).waitFor();
    await assertAccessible(page, 'connect page');
    await screenshot('07-owner-desktop-connect');

    // A broker: an address without mqtt:// is refused before sending; topics that overlap by the API.
    await page.getByRole('link', { name: 'Add broker' }).click();
    await waitForFocus(page, 'h1', 'Add an MQTT broker');
    assert.equal(
      await page.getByLabel('Topics to listen to').inputValue(),
      'application/+/device/+/event/up',
    );
    await page.getByLabel('Name', { exact: true }).fill('Farm gateway');
    await page.getByLabel('Broker address').fill('127.0.0.1:1883');
    await page.getByLabel('User name (optional)').fill('farm');
    await page.getByLabel('Password (optional)').fill('broker-secret-1');
    await page.getByLabel('Messages written by').selectOption('furrow');
    assert.equal(await page.getByLabel('Topics to listen to').inputValue(), 'farm/sensors/+');
    await page.getByLabel('Topics to listen to').fill('farm/#\nfarm/sensors/+');
    await page.getByRole('button', { name: 'Add broker' }).click();
    await page
      .locator('#mqtt-url-error')
      .getByText(/^Start with mqtt:\/\/ or mqtts:\/\//)
      .waitFor();
    await waitForFocusedId(page, 'mqtt-url');
    await page.getByLabel('Broker address').fill('mqtt://127.0.0.1:1883');
    await page.getByRole('button', { name: 'Add broker' }).click();
    await page.locator('#mqtt-topics-error').waitFor();
    await waitForFocusedId(page, 'mqtt-topics');
    assert.equal(await page.getByLabel('Password (optional)').inputValue(), 'broker-secret-1', 'kept');
    await assertAccessible(page, 'broker form with an error');
    await screenshot('08-owner-desktop-broker-error');
    await page.getByLabel('Topics to listen to').fill(`${topics}/+`);
    await page.getByRole('button', { name: 'Add broker' }).click();
    await waitForFocus(page, 'h1', 'Connect sensors');
    await page
      .getByRole('status')
      .getByText('The broker Farm gateway was added. Furrow connects within a minute.')
      .waitFor();
    const card = page.locator('.card').filter({ hasText: 'Farm gateway' });
    await card.getByText('Not connected').waitFor();
    await card.getByText('No message yet').waitFor();
    await card.getByText(`${topics}/+`).waitFor();
    await card.getByText("Furrow's own (device code in the topic)").waitFor();
    await assertAccessible(page, 'a broker');
    await screenshot('09-owner-desktop-broker-added');
    const sources = (await owner.get('/api/iot/mqtt-sources')).body;
    const source = (Array.isArray(sources) ? sources : sources.data)[0];
    assert.equal(source.has_password, true);
    assert.equal(source.username, 'farm');
    assert.equal(source.format, 'furrow');

    // The worker connects (the machine's shared broker takes any user), and a gateway's message is
    // stored as a reading of the device in its topic; a broker of the test's own refuses a password.
    const strict = await startTestBroker({ users: { farm: 'right-password' } });
    const subscriber = createMqttSubscriber(
      {
        db: suite.t.database.db,
        clock: systemClock,
        secretKey: suite.t.config.secretKey as Buffer,
        config: { mqttAllowPrivateHosts: ['127.0.0.1'] },
        logger: { info() {}, warn() {}, error() {} },
      },
      { pollMs: 500 },
    );
    try {
      const refusing = await owner.post('/api/iot/mqtt-sources', {
        json: {
          name: 'Pump house broker',
          url: strict.url,
          username: 'farm',
          password: 'wrong-password',
          topics: [`${topics}-pumps/+`],
          format: 'furrow',
        },
      });
      assert.equal(refusing.status, 201, refusing.text);
      await subscriber.start();
      await card.locator('.badge.broker-connected').getByText('Connected').waitFor({ timeout: 20_000 });
      await publish(SHARED_BROKER_URL, [{ topic: `${topics}/gh-b-02`, payload: { soil_moisture: 41.5 } }]);
      await card.getByText(/^Last message/).waitFor({ timeout: 20_000 });
      const pump = page.locator('.card').filter({ hasText: 'Pump house broker' });
      await pump.getByText('Not connected').waitFor({ timeout: 20_000 });
      await pump
        .getByText(/^The broker did not let Furrow in: check the user name, the password/)
        .waitFor({ timeout: 20_000 });
      await pump.getByText('not authorised: the broker refused this client').waitFor();
      await assertAccessible(page, 'brokers connected and refused');
      await screenshot('09-owner-desktop-brokers-status');
      const readings = (await owner.get(`/api/iot/devices/${(await adoptedDevice()).id}/readings`)).body;
      assert.ok(
        readings.some(
          (r: { metric: string; value: number }) => r.metric === 'soil_moisture' && r.value === 41.5,
        ),
        'the MQTT message is a reading of the device',
      );
      await pump.getByRole('button', { name: 'Delete the broker Pump house broker' }).click();
      await page
        .getByRole('dialog', { name: 'Delete this MQTT broker?' })
        .getByRole('button', { name: 'Delete broker' })
        .click();
      await page.getByRole('status').getByText('The broker Pump house broker was deleted.').waitFor();
    } finally {
      await subscriber.stop();
      await strict.close();
    }

    // Editing: the password is not shown, and left empty it stays.
    await card.getByRole('link', { name: 'Edit the broker Farm gateway' }).click();
    await waitForFocus(page, 'h1', 'Edit MQTT broker');
    await page
      .getByText('A password is saved. Leave empty to keep it; type a new one to change it.')
      .waitFor();
    assert.equal(await page.getByLabel('Password (optional)').inputValue(), '');
    await page.getByLabel('Name', { exact: true }).fill('Farm gateway 2');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForFocus(page, 'h1', 'Connect sensors');
    await page.getByRole('status').getByText('The broker Farm gateway 2 was saved.').waitFor();
    const changed = (await owner.get(`/api/iot/mqtt-sources/${source.id}`)).body;
    const after = Array.isArray(changed) ? changed[0] : (changed.data ?? changed);
    assert.equal(after.name, 'Farm gateway 2');
    assert.equal(after.has_password, true, 'the password stayed');

    // At phone width it fits.
    await page.setViewportSize(PHONE);
    await assertFits(page, 'connect page on a phone');
    await screenshot('10-owner-phone-connect');
    await page.setViewportSize(DESKTOP);

    // Deleting asks first.
    await page.getByRole('button', { name: 'Delete the broker Farm gateway 2' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this MQTT broker?' })
      .getByRole('button', { name: 'Delete broker' })
      .click();
    await page.getByRole('status').getByText('The broker Farm gateway 2 was deleted.').waitFor();
    await page.getByRole('heading', { name: 'No MQTT broker yet' }).waitFor();
    await waitForFocus(page, 'h2', 'MQTT brokers');
  });

  it('owner: a rule with back to normal and a minimum duration; its alert raised and resolved; a DevEUI', async () => {
    const devices = (await owner.get('/api/iot/devices')).body as {
      id: number;
      code: string;
      name: string;
    }[];
    const sensor = devices.find((d) => d.code === 'gh-b-02');
    assert.ok(sensor, 'the adopted device');
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/sensors/rules/new');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'Add an alert rule' }).waitFor();
    await page.getByLabel('Watch').selectOption({ label: 'Greenhouse B soil' });
    await page.getByLabel('Measurement').fill('temperature');
    await page.getByLabel('Alert when the value is').selectOption('gt');
    await page.getByLabel('Limit').fill('35');
    await page.getByLabel('Back to normal at (optional)').fill('36');
    await page.getByLabel('Only alert after it lasts (minutes)').fill('10');
    await page.getByLabel('Severity').selectOption('critical');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page
      .locator('#rule-clear-error')
      .getByText('For an alert above the limit, back to normal must be at the limit or below it.')
      .waitFor();
    await waitForFocusedId(page, 'rule-clear');
    await assertAccessible(page, 'rule form with an error');
    await screenshot('11-owner-desktop-rule-error');
    await page.getByLabel('Back to normal at (optional)').fill('33');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await waitForFocus(page, 'h1', 'Sensors');
    const row = page.locator('table.rules tbody tr').filter({ hasText: 'Temperature above 35 °C' });
    await row.getByText('Back to normal at 33 °C').waitFor();
    await row.getByText('Only after it lasts 10 minutes').waitFor();
    const rule = (await owner.get('/api/iot/rules')).body[0];
    assert.equal(rule.clear_threshold, 33);
    assert.equal(rule.min_duration_seconds, 600);

    // Readings as the gateway sends them: beyond the limit for 15 minutes (an alert), then back.
    const now = suite.t.clock.now();
    const send = async (value: number, at: number) => {
      const res = await owner.post('/api/iot/readings', {
        json: {
          readings: [
            { device_code: 'gh-b-02', metric: 'temperature', value, recorded_at: new Date(at).toISOString() },
          ],
        },
      });
      assert.equal(res.status, 200, res.text);
    };
    await send(38, now - 30 * MINUTE);
    await send(38.5, now - 15 * MINUTE);
    const item = page.locator('.alert-item').filter({ hasText: /Temperature: 38(\.5)? °C/ });
    await item.getByText('Active').waitFor({ timeout: 25_000 });
    await send(34, now - 10 * MINUTE);
    await send(32, now - 5 * MINUTE);
    await item.locator('.badge.alert-resolved').getByText('Back to normal').waitFor({ timeout: 25_000 });
    await item.getByText(/^Back to normal \d/).waitFor();
    await assertAccessible(page, 'a resolved alert');
    await screenshot('12-owner-desktop-resolved-alert');

    // The filters: by state and severity.
    await page.getByLabel('State').selectOption('active');
    await page.getByText('No alerts match these choices.').waitFor();
    await page.getByLabel('State').selectOption('resolved');
    await item.waitFor();
    await page.getByLabel('Severity').selectOption('warning');
    await page.getByText('No alerts match these choices.').waitFor();
    await page.getByLabel('Severity').selectOption('critical');
    await item.waitFor();
    // Acknowledged by whom and when.
    await item.getByRole('button', { name: /^Acknowledge/ }).click();
    await waitForFocus(page, 'p', /^✓ Acknowledged by Ana Tran, /);
    await page.getByLabel('State').selectOption('');

    // A device's DevEUI: a wrong one is refused here, one another device has by the API.
    await page.getByRole('link', { name: 'Add device' }).click();
    await waitForFocus(page, 'h1', 'Add a device');
    await page.getByLabel('Device code').fill('orchard-03');
    await page.getByLabel('DevEUI (optional)').fill('70-B3-D5-7E-D0-01-23');
    await page.getByRole('button', { name: 'Add device' }).click();
    await page
      .locator('#device-eui-error')
      .getByText(/^A DevEUI has exactly 16 characters/)
      .waitFor();
    await waitForFocusedId(page, 'device-eui');
    await page.getByLabel('DevEUI (optional)').fill('70:B3:D5:7E:D0:01:23:45');
    await page.getByRole('button', { name: 'Add device' }).click();
    await page
      .locator('#device-eui-error')
      .getByText(/70b3d57ed0012345/)
      .waitFor();
    await waitForFocusedId(page, 'device-eui');
    await assertAccessible(page, 'device form, DevEUI taken');
    await screenshot('13-owner-desktop-dev-eui-taken');
    await page.getByLabel('DevEUI (optional)').fill('A8-40-41-00-01-81-C2-D4');
    await page.getByRole('button', { name: 'Add device' }).click();
    await waitForFocus(page, 'h1', 'orchard-03');
    await page.locator('.facts').getByText('a84041000181c2d4').waitFor();

    await page.setViewportSize(PHONE);
    await page.getByRole('link', { name: 'All sensors' }).click();
    await waitForFocus(page, 'h1', 'Sensors');
    await assertFits(page, 'sensors page on a phone');
    await assertAccessible(page, 'sensors page on a phone');
    await screenshot('14-owner-phone-sensors');
  });

  it('owner: e-mail alerts, who gets them, and a note when the server sends no e-mail', async () => {
    const { page, screenshot } = await screen({ viewport: DESKTOP });
    await page.goto('/manage/sensors/email-alerts');
    await signIn(page, suite.farm.code, suite.farm.owner);
    await page.getByRole('heading', { level: 1, name: 'E-mail alerts' }).waitFor();
    await page.getByText(/^This Furrow server cannot send e-mail yet/).waitFor();
    await page.getByText('ana@example.com').waitFor();
    const staffRow = page.locator('.person-choice.no-email').filter({ hasText: suite.staff.username });
    await staffRow.getByText('No e-mail address.').waitFor();
    await staffRow.getByRole('link', { name: `Add one for ${suite.staff.username}` }).waitFor();

    // On, with nobody chosen, is said next to the list.
    await page.getByLabel('Send e-mail alerts').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page
      .locator('#email-people-error')
      .getByText('Choose at least one person to send e-mails to.')
      .waitFor();
    await assertAccessible(page, 'e-mail settings with an error');
    await screenshot('15-owner-desktop-email-error');

    // The staff member gets an address on their page, and can then be chosen.
    await staffRow.getByRole('link', { name: `Add one for ${suite.staff.username}` }).click();
    await waitForFocus(page, 'h1', suite.staff.username);
    await page.getByLabel('E-mail address (optional)').fill('not an address');
    await page.getByRole('button', { name: 'Save e-mail address' }).click();
    await page
      .locator('#person-email-error')
      .getByText(/^This is not an e-mail address/)
      .waitFor();
    await waitForFocusedId(page, 'person-email');
    await page.getByLabel('E-mail address (optional)').fill('minh@example.com');
    await page.getByRole('button', { name: 'Save e-mail address' }).click();
    await page
      .getByRole('status')
      .getByText(/e-mail address is now minh@example.com/)
      .waitFor();
    await assertAccessible(page, 'person page with an e-mail address');
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'E-mail alerts' }).waitFor();
    await page.getByRole('checkbox', { name: /minh@example.com/ }).waitFor();
    assert.equal(await page.locator('.person-choice.no-email').count(), 0);

    await page.getByLabel('Send e-mail alerts').check();
    await page.getByLabel('Send for').selectOption('warning');
    await page.getByLabel(/^Ana Tran/).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('E-mail alerts saved.').waitFor();
    const saved = (await owner.get('/api/notifications/settings')).body;
    const email = (saved.data ?? saved).email;
    assert.deepEqual(
      { enabled: email.enabled, min_severity: email.min_severity, user_ids: email.user_ids },
      { enabled: true, min_severity: 'warning', user_ids: [suite.farm.owner.id] },
    );
    await assertAccessible(page, 'e-mail settings saved');
    await screenshot('16-owner-desktop-email');
    await page.setViewportSize(PHONE);
    await assertFits(page, 'e-mail settings on a phone');
    await screenshot('17-owner-phone-email');
  });

  it('owner on a phone in Vietnamese: the new pages', async () => {
    await ttsUplink({ soil_moisture: 27 }, 'a84041000181c2aa');
    const { page, screenshot } = await screen({ viewport: PHONE });
    await page.goto('/manage/sensors');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.farm.owner, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Cảm biến' }).waitFor();
    await page.getByText(/thiết bị mới đang gửi dữ liệu nhưng chưa được thêm/).waitFor();
    await assertFits(page, 'vi sensors');
    await assertAccessible(page, 'vi sensors');
    await screenshot('18-owner-phone-vi-sensors');

    const visit = async (link: string | RegExp, heading: string, name: string) => {
      await page.getByRole('link', { name: link }).first().click();
      await waitForFocus(page, 'h1', heading);
      await assertFits(page, `vi ${heading}`);
      await assertAccessible(page, `vi ${heading}`);
      await screenshot(name);
    };
    await visit('Xem thiết bị mới', 'Thiết bị mới', '19-owner-phone-vi-new-devices');
    await page.locator('.card.unclaimed').getByText('Độ ẩm đất 27 %').waitFor();
    await visit(/Tất cả cảm biến$/, 'Cảm biến', '20-owner-phone-vi-back');
    await visit(/^Kết nối cảm biến$|Kết nối cảm biến$/, 'Kết nối cảm biến', '21-owner-phone-vi-connect');
    await visit('Thêm máy chủ', 'Thêm máy chủ MQTT', '22-owner-phone-vi-broker-form');
    await visit(
      /^Kết nối cảm biến$|Kết nối cảm biến$/,
      'Kết nối cảm biến',
      '23-owner-phone-vi-connect-again',
    );
    await visit('Cài đặt cảnh báo qua e-mail', 'Cảnh báo qua e-mail', '24-owner-phone-vi-email');
    assert.equal(await page.getByLabel('Gửi khi có').inputValue(), 'warning', 'as saved');

    await page.setViewportSize(DESKTOP);
    await visit(/Tất cả cảm biến$/, 'Cảm biến', '25-owner-desktop-vi-sensors');
    await page.locator('.alert-item').getByText('Đã trở lại bình thường').first().waitFor();
    await visit(/^Kết nối cảm biến$|Kết nối cảm biến$/, 'Kết nối cảm biến', '26-owner-desktop-vi-connect');
  });

  it('staff, on a phone in Vietnamese: no owner page is offered, and a link to one asks nothing', async () => {
    const { page, screenshot } = await screen({ viewport: PHONE });
    const asked: string[] = [];
    page.on('request', (request) => {
      if (/\/api\/(iot\/(mqtt-sources|unclaimed-devices)|notifications)/.test(request.url()))
        asked.push(request.url());
    });
    await page.goto('/manage/sensors');
    await page.getByLabel('Language').selectOption('vi');
    await signIn(page, suite.farm.code, suite.staff, 'vi');
    await page.getByRole('heading', { level: 1, name: 'Cảm biến' }).waitFor();
    await page.locator('.alert-item').first().waitFor();
    await page.locator('.alert-item').getByText('Đã trở lại bình thường').first().waitFor();
    for (const name of ['Kết nối cảm biến', 'Thiết bị mới', 'Cảnh báo qua e-mail', 'Xem thiết bị mới']) {
      assert.equal(await page.getByRole('link', { name }).count(), 0, `no "${name}" for staff`);
    }
    await assertFits(page, 'staff sensors');
    await assertAccessible(page, 'staff sensors');
    await screenshot('27-staff-phone-vi-sensors');
    for (const path of [
      '/manage/sensors/connect',
      '/manage/sensors/new-devices',
      '/manage/sensors/email-alerts',
    ]) {
      await page.goto(path);
      await page.getByText('Chỉ chủ trang trại mới dùng được trang này.').waitFor();
    }
    await assertAccessible(page, 'staff on an owner page');
    await screenshot('28-staff-phone-vi-owner-page');
    await page.setViewportSize(DESKTOP);
    await page.goto('/manage/sensors');
    await page.getByRole('heading', { level: 1, name: 'Cảm biến' }).waitFor();
    await page.locator('.alert-item').first().waitFor();
    await assertAccessible(page, 'staff desktop');
    await screenshot('29-staff-desktop-vi-sensors');
    assert.deepEqual(asked, [], 'staff pages ask nothing of the owners’ APIs');
  });
});
