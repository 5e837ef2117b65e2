import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AggregateConfigError, loadConfig, parseSchedule, redactSmtpUrl } from './config.js';

describe('config', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, 'sqlite:./data/furrow.db');
    assert.equal(config.secretKey, undefined);
    assert.equal(config.tokenTtlSeconds, 36000);
    assert.deepEqual(
      config.webhookRetryScheduleMs,
      [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000],
    );
    assert.equal(config.webhookTimeoutMs, 10000);
    assert.deepEqual(config.webhookAllowPrivateHosts, []);
    assert.equal(config.webhookCaFile, undefined);
    assert.equal(config.webhookSendThread, false);
    assert.deepEqual(config.mqttAllowPrivateHosts, []);
    assert.equal(config.iotSweepIntervalMs, 15000);
    assert.equal(config.iotRawRetentionDays, 90);
    assert.deepEqual(config.databaseTimeouts, {
      connectMs: 5000,
      statementMs: 10_000,
      idleInTransactionMs: 30_000,
    });
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.databaseTimeouts));
  });

  it('bounds slow clients by default and reads the HTTP limits', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.httpHeadersTimeoutMs, 10_000);
    assert.equal(defaults.httpRequestTimeoutMs, 30_000);
    assert.equal(defaults.httpMaxConnections, 10_000);
    const set = loadConfig({
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '5000',
      HTTP_MAX_CONNECTIONS: '500',
    });
    assert.deepEqual(
      [set.httpHeadersTimeoutMs, set.httpRequestTimeoutMs, set.httpMaxConnections],
      [2000, 5000, 500],
    );
    assert.throws(
      () => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '9000', HTTP_REQUEST_TIMEOUT_MS: '5000' }),
      /HTTP_HEADERS_TIMEOUT_MS: 9000 is longer than HTTP_REQUEST_TIMEOUT_MS/,
    );
    assert.throws(
      () => loadConfig({ HTTP_MAX_CONNECTIONS: '0' }),
      /HTTP_MAX_CONNECTIONS: "0" is out of range/,
    );
  });

  it('reads every variable', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://furrow@db:5432/furrow',
      FURROW_SECRET_KEY: key.toString('base64'),
      TOKEN_TTL_SECONDS: '600',
      WEBHOOK_RETRY_SCHEDULE: '100ms,2s',
      WEBHOOK_TIMEOUT_MS: '500',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'receiver.local, 10.0.0.0/8,::1',
      WEBHOOK_CA_FILE: '/etc/furrow/ca.pem',
      WEBHOOK_SEND_THREAD: 'on',
      MQTT_ALLOW_PRIVATE_HOSTS: 'broker.lan,192.168.1.0/24',
      IOT_SWEEP_INTERVAL_MS: '50',
      IOT_RAW_RETENTION_DAYS: '0',
      DATABASE_CONNECT_TIMEOUT_MS: '1500',
      DATABASE_STATEMENT_TIMEOUT_MS: '0',
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '60000',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.databaseUrl, 'postgres://furrow@db:5432/furrow');
    assert.deepEqual(config.secretKey, key);
    assert.equal(config.tokenTtlSeconds, 600);
    assert.deepEqual(config.webhookRetryScheduleMs, [100, 2000]);
    assert.equal(config.webhookTimeoutMs, 500);
    assert.deepEqual(config.webhookAllowPrivateHosts, ['receiver.local', '10.0.0.0/8', '::1']);
    assert.equal(config.webhookCaFile, '/etc/furrow/ca.pem');
    assert.equal(config.webhookSendThread, true);
    assert.deepEqual(config.mqttAllowPrivateHosts, ['broker.lan', '192.168.1.0/24']);
    assert.equal(config.iotSweepIntervalMs, 50);
    assert.equal(config.iotRawRetentionDays, 0);
    assert.deepEqual(config.databaseTimeouts, {
      connectMs: 1500,
      statementMs: 0,
      idleInTransactionMs: 60_000,
    });
  });

  it('reads FURROW_DEMO as on or off', () => {
    assert.equal(loadConfig({}).demo, true);
    for (const off of ['off', 'OFF', 'false', '0', 'no'])
      assert.equal(loadConfig({ FURROW_DEMO: off }).demo, false);
    for (const on of ['on', 'true', '1', 'yes']) assert.equal(loadConfig({ FURROW_DEMO: on }).demo, true);
  });

  it('accepts a hex secret key', () => {
    assert.deepEqual(loadConfig({ FURROW_SECRET_KEY: 'ab'.repeat(32) }).secretKey, Buffer.alloc(32, 0xab));
  });

  const bad: [string, string, RegExp][] = [
    ['PORT', 'eighty', /PORT: "eighty" is not a port number/],
    ['PORT', '70000', /PORT: .*out of range/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL: must be sqlite:PATH .* or postgres:\/\//],
    ['FURROW_SECRET_KEY', 'short', /FURROW_SECRET_KEY: must be 32 random bytes/],
    ['TOKEN_TTL_SECONDS', '-5', /TOKEN_TTL_SECONDS: "-5" is not a number of seconds/],
    ['WEBHOOK_RETRY_SCHEDULE', '1m,soon', /WEBHOOK_RETRY_SCHEDULE: "soon" is not a delay/],
    ['WEBHOOK_TIMEOUT_MS', '10s', /WEBHOOK_TIMEOUT_MS: "10s" is not milliseconds/],
    [
      'WEBHOOK_ALLOW_PRIVATE_HOSTS',
      '10.0.0.0/99',
      /WEBHOOK_ALLOW_PRIVATE_HOSTS: "10.0.0.0\/99" is not a host/,
    ],
    [
      'MQTT_ALLOW_PRIVATE_HOSTS',
      'mqtt://broker',
      /MQTT_ALLOW_PRIVATE_HOSTS: "mqtt:\/\/broker" is not a host/,
    ],
    ['IOT_SWEEP_INTERVAL_MS', '0', /IOT_SWEEP_INTERVAL_MS: .*out of range/],
    ['IOT_RAW_RETENTION_DAYS', '90d', /IOT_RAW_RETENTION_DAYS: "90d" is not a number of days/],
    ['HOST', 'bad host!', /HOST: "bad host!" is not an IP address/],
    [
      'DATABASE_CONNECT_TIMEOUT_MS',
      '0',
      /DATABASE_CONNECT_TIMEOUT_MS: .*out of range; expected milliseconds/,
    ],
    ['DATABASE_CONNECT_TIMEOUT_MS', '5s', /DATABASE_CONNECT_TIMEOUT_MS: "5s" is not milliseconds/],
    [
      'DATABASE_STATEMENT_TIMEOUT_MS',
      '50',
      /DATABASE_STATEMENT_TIMEOUT_MS: .*out of range; expected milliseconds from 100 to 3600000, or 0 for no limit/,
    ],
    ['DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 'never', /DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "never"/],
    ['FURROW_DEMO', 'maybe', /FURROW_DEMO: "maybe" is neither on nor off/],
  ];
  for (const [variable, value, message] of bad) {
    it(`rejects ${variable}=${value} with a message naming the variable`, () => {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (err: unknown) => {
          assert.ok(err instanceof AggregateConfigError);
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }

  it('lists every bad variable at once', () => {
    assert.throws(
      () => loadConfig({ PORT: 'x', TOKEN_TTL_SECONDS: 'y' }),
      (err: AggregateConfigError) =>
        err.errors.length === 2 && /PORT/.test(err.message) && /TOKEN_TTL_SECONDS/.test(err.message),
    );
  });

  it('parses schedules with every unit', () => {
    assert.deepEqual(parseSchedule('5ms,1s,1m,1h,1d'), [5, 1000, 60_000, 3_600_000, 86_400_000]);
    assert.throws(() => parseSchedule(''), /is not a delay/);
    assert.throws(() => parseSchedule('8d'), /longer than 7 days/);
  });

  it('reads SMTP_URL and MAIL_FROM, e-mail off by default, and never repeats the password', () => {
    const off = loadConfig({});
    assert.equal(off.smtpUrl, undefined);
    assert.equal(off.mailFrom, 'Furrow <furrow@localhost>');
    const on = loadConfig({
      SMTP_URL: 'smtps://mailer:p%40ss-w0rd@mail.example.com:465',
      MAIL_FROM: 'alerts@farm.vn',
    });
    assert.equal(on.smtpUrl, 'smtps://mailer:p%40ss-w0rd@mail.example.com:465');
    assert.equal(on.mailFrom, 'alerts@farm.vn');
    assert.equal(redactSmtpUrl(on.smtpUrl!), 'smtps://mailer:***@mail.example.com:465');
    assert.equal(redactSmtpUrl('smtp://127.0.0.1:2525'), 'smtp://127.0.0.1:2525');
    for (const bad of [
      'http://mail.example.com',
      'smtp://',
      'smtp://user:hunter2-secret@host:25/path',
      'mail.example.com',
    ]) {
      assert.throws(
        () => loadConfig({ SMTP_URL: bad }),
        (err: AggregateConfigError) =>
          /SMTP_URL/.test(err.message) && !err.message.includes('hunter2-secret'),
        bad,
      );
    }
    for (const bad of ['not an address', 'Furrow <furrow@localhost>\r\nBcc: x@y.z', 'a@b@c']) {
      assert.throws(() => loadConfig({ MAIL_FROM: bad }), /MAIL_FROM/, bad);
    }
  });
  it('reads METRICS_PORT and METRICS_HOST: metrics off by default, on a port of their own', () => {
    const off = loadConfig({});
    assert.equal(off.metricsPort, undefined);
    assert.equal(off.metricsHost, '127.0.0.1');
    const on = loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' });
    assert.equal(on.metricsPort, 9464);
    assert.equal(on.metricsHost, '0.0.0.0');
    assert.equal(loadConfig({ METRICS_PORT: '  ' }).metricsPort, undefined);
    for (const bad of ['0', '65536', 'on', '94.64', '-1']) {
      assert.throws(
        () => loadConfig({ METRICS_PORT: bad }),
        /METRICS_PORT: .*port number from 1 to 65535/,
        bad,
      );
    }
    assert.throws(() => loadConfig({ METRICS_HOST: 'a host' }), /METRICS_HOST/);
    assert.throws(
      () => loadConfig({ PORT: '8080', METRICS_PORT: '8080' }),
      /METRICS_PORT: 8080 is the API's PORT/,
    );
  });
});
