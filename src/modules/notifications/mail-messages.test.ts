// The texts of the mails and the retry arithmetic, without a database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alertMail, offlineMail, pauseMail, utcMinute } from './mail-messages.js';
import { isPermanentRejection, nextMailAttempt, retryDelayMs } from './mail-worker.js';

const where = { farm: 'Green Valley', deviceCode: 'gh-1', deviceName: 'Greenhouse sensor', zone: null };
const at = Date.UTC(2026, 10, 24, 21, 40, 59);

describe('mail texts', () => {
  it('says when in UTC, to the minute', () => {
    assert.equal(utcMinute(at), '2026-11-24 21:40 UTC');
  });

  it('words each comparison in both languages', () => {
    const alert = (language: 'en' | 'vi', operator: string) =>
      alertMail(language, {
        ...where,
        severity: 'info',
        metric: 'soil_moisture',
        value: 12,
        threshold: 15,
        operator,
        message: 'Dry',
        recordedAt: at,
      }).text;
    assert.match(alert('en', 'gt'), /threshold: above 15/);
    assert.match(alert('en', 'gte'), /threshold: at or above 15/);
    assert.match(alert('en', 'lt'), /threshold: below 15/);
    assert.match(alert('en', 'lte'), /threshold: at or below 15/);
    assert.match(alert('vi', 'gt'), /ngưỡng: trên 15/);
    assert.match(alert('vi', 'gte'), /ngưỡng: từ 15 trở lên/);
    assert.match(alert('vi', 'lt'), /ngưỡng: dưới 15/);
    assert.match(alert('vi', 'lte'), /ngưỡng: từ 15 trở xuống/);
    assert.match(alert('en', 'lt'), /^Notice on Green Valley\./);
    assert.match(alert('vi', 'lt'), /^Thông báo ở trang trại Green Valley\./);
    assert.match(alert('en', 'lt'), /Where: no zone assigned/);
    assert.match(alert('vi', 'lt'), /Vị trí: chưa gán khu vực/);
  });

  it('tells of a device never heard from', () => {
    const mail = { ...where, lastHeartbeatAt: null };
    assert.match(offlineMail('en', mail).text, /It has never reported\./);
    assert.match(offlineMail('vi', mail).text, /Thiết bị này chưa từng gửi dữ liệu\./);
  });

  it('says why an endpoint was paused', () => {
    const gone = {
      farm: 'Green Valley',
      url: 'https://example.com/hook',
      description: null,
      reason: { kind: 'gone' as const },
    };
    assert.match(pauseMail('en', gone).text, /Why: the receiver answered 410 Gone/);
    assert.match(pauseMail('vi', gone).text, /Lý do: máy nhận trả lời 410 Gone/);
    assert.doesNotMatch(pauseMail('en', gone).text, /\(null\)/);
  });
});

describe('mail retries', () => {
  it('waits a minute, doubling, at most an hour', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => retryDelayMs(n) / 60_000),
      [1, 2, 4, 8, 16, 32, 60, 60, 60],
    );
  });

  it('gives up once the next attempt would be more than a day after the mail was written', () => {
    const createdAt = 0;
    assert.equal(nextMailAttempt({ createdAt }, 7, 22 * 3_600_000), 23 * 3_600_000);
    assert.equal(nextMailAttempt({ createdAt }, 7, 23 * 3_600_000 + 1), null);
  });

  it('takes a 5xx answer to the recipient or the message as final, and nothing else', () => {
    const err = (code: string, responseCode?: number) =>
      Object.assign(new Error('x'), { code, responseCode });
    assert.equal(isPermanentRejection(err('EENVELOPE', 550)), true);
    assert.equal(isPermanentRejection(err('EMESSAGE', 554)), true);
    assert.equal(isPermanentRejection(err('EENVELOPE', 450)), false);
    assert.equal(isPermanentRejection(err('EAUTH', 535)), false);
    assert.equal(isPermanentRejection(err('ECONNECTION')), false);
  });
});
