// The texts of Furrow's e-mails, in the recipient's language: plain text a farmer can act on (what
// happened, which device and where, the value against its threshold, when, in UTC).
import type { Language } from '../../platform/i18n.js';

export interface MailText {
  subject: string;
  text: string;
}

export type Severity = 'info' | 'warning' | 'critical';

export interface DeviceWhere {
  /** The farm (tenant) name. */
  farm: string;
  deviceCode: string;
  deviceName: string;
  /** The device's zone, if it has one. */
  zone: string | null;
}

export interface AlertMail extends DeviceWhere {
  severity: Severity;
  metric: string;
  value: number;
  threshold: number;
  operator: string;
  /** The rule's message as rendered for the alert. */
  message: string;
  recordedAt: number;
}

export interface OfflineMail extends DeviceWhere {
  /** The last time the device was heard from; null: never. */
  lastHeartbeatAt: number | null;
}

export interface PauseMail {
  farm: string;
  url: string;
  description: string | null;
  /** Why it was paused: a streak of failed deliveries (its length), or the receiver's 410 Gone. */
  reason: { kind: 'failures'; count: number } | { kind: 'gone' };
}

/** "2026-11-24 21:40 UTC". */
export function utcMinute(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const SEVERITY: Record<Language, Record<Severity, string>> = {
  en: { critical: 'Critical alert', warning: 'Warning', info: 'Notice' },
  vi: { critical: 'Cảnh báo nghiêm trọng', warning: 'Cảnh báo', info: 'Thông báo' },
};

const OPERATOR: Record<Language, Record<string, string>> = {
  en: { gt: 'above', gte: 'at or above', lt: 'below', lte: 'at or below' },
  vi: { gt: 'trên', gte: 'từ', lt: 'dưới', lte: 'từ' },
};
const SIGN: Record<string, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤' };

/** "above 30" / "trên 30"; Vietnamese puts "trở lên"/"trở xuống" after the number for ≥ and ≤. */
function limit(language: Language, operator: string, threshold: number): string {
  const word = OPERATOR[language][operator] ?? operator;
  if (language === 'vi' && operator === 'gte') return `${word} ${threshold} trở lên`;
  if (language === 'vi' && operator === 'lte') return `${word} ${threshold} trở xuống`;
  return `${word} ${threshold}`;
}

const device = (m: DeviceWhere) => `${m.deviceName} (${m.deviceCode})`;

export function alertMail(language: Language, m: AlertMail): MailText {
  const title = SEVERITY[language][m.severity];
  const sign = SIGN[m.operator] ?? m.operator;
  if (language === 'vi') {
    return {
      subject: `${title}: ${m.metric} = ${m.value} (${sign} ${m.threshold}) tại ${device(m)}`,
      text: lines([
        `${title} ở trang trại ${m.farm}.`,
        '',
        `Thiết bị: ${device(m)}`,
        `Vị trí: ${m.zone ?? 'chưa gán khu vực'}`,
        `Chỉ số: ${m.metric} = ${m.value} (ngưỡng: ${limit('vi', m.operator, m.threshold)})`,
        `Thời điểm đo: ${utcMinute(m.recordedAt)}`,
        `Nội dung: ${m.message}`,
        '',
        'Hãy kiểm tra thiết bị và khu vực này. Cảnh báo nằm trong mục Cảm biến → Cảnh báo của ứng dụng Furrow, nơi bạn có thể bấm "Xác nhận đã biết".',
      ]),
    };
  }
  return {
    subject: `${title}: ${m.metric} ${m.value} (${sign} ${m.threshold}) on ${device(m)}`,
    text: lines([
      `${title} on ${m.farm}.`,
      '',
      `Device: ${device(m)}`,
      `Where: ${m.zone ?? 'no zone assigned'}`,
      `Reading: ${m.metric} = ${m.value} (threshold: ${limit('en', m.operator, m.threshold)})`,
      `Measured at: ${utcMinute(m.recordedAt)}`,
      `Message: ${m.message}`,
      '',
      'Check the device and the area it watches. The alert is under Sensors → Alerts in the Furrow app, where you can acknowledge it.',
    ]),
  };
}

export function offlineMail(language: Language, m: OfflineMail): MailText {
  if (language === 'vi') {
    const since =
      m.lastHeartbeatAt === null
        ? 'Thiết bị này chưa từng gửi dữ liệu.'
        : `Lần cuối nhận được tín hiệu: ${utcMinute(m.lastHeartbeatAt)}.`;
    return {
      subject: `Thiết bị mất kết nối: ${device(m)}`,
      text: lines([
        `Furrow không còn nhận được tín hiệu từ thiết bị ${device(m)} ở trang trại ${m.farm}.`,
        '',
        `Vị trí: ${m.zone ?? 'chưa gán khu vực'}`,
        since,
        '',
        'Hãy kiểm tra nguồn điện, pin và kết nối mạng của thiết bị. Khi thiết bị gửi dữ liệu trở lại, nó sẽ tự động được coi là đang hoạt động.',
      ]),
    };
  }
  const since =
    m.lastHeartbeatAt === null
      ? 'It has never reported.'
      : `Last heard from: ${utcMinute(m.lastHeartbeatAt)}.`;
  return {
    subject: `Device offline: ${device(m)}`,
    text: lines([
      `Furrow no longer hears from device ${device(m)} on ${m.farm}.`,
      '',
      `Where: ${m.zone ?? 'no zone assigned'}`,
      since,
      '',
      'Check its power, battery and network connection. It counts as online again as soon as it reports.',
    ]),
  };
}

export function pauseMail(language: Language, m: PauseMail): MailText {
  const name = m.description ? `${m.url} (${m.description})` : m.url;
  if (language === 'vi') {
    const why =
      m.reason.kind === 'gone'
        ? 'máy nhận trả lời 410 Gone (không còn nhận sự kiện nữa)'
        : `${m.reason.count} lần gửi liên tiếp đều thất bại sau mọi lần thử lại`;
    return {
      subject: `Điểm nhận webhook đã bị tạm dừng: ${m.url}`,
      text: lines([
        `Furrow đã tự động tạm dừng điểm nhận webhook ${name} của trang trại ${m.farm}.`,
        '',
        `Lý do: ${why}.`,
        '',
        'Các sự kiện mới cho điểm nhận này được giữ lại, không bị mất.',
        'Khi máy nhận hoạt động trở lại, hãy mở mục Webhook trong ứng dụng Furrow, chọn điểm nhận này rồi bấm "Bật lại": các sự kiện đang giữ sẽ được gửi đi.',
      ]),
    };
  }
  const why =
    m.reason.kind === 'gone'
      ? 'the receiver answered 410 Gone (it no longer takes events)'
      : `${m.reason.count} deliveries in a row failed every attempt`;
  return {
    subject: `Webhook endpoint paused: ${m.url}`,
    text: lines([
      `Furrow paused the webhook endpoint ${name} of ${m.farm} automatically.`,
      '',
      `Why: ${why}.`,
      '',
      'New events for it are held, not lost.',
      'Once the receiver works again, open Webhooks in the Furrow app, choose this endpoint and press "Re-enable": the held events are then sent.',
    ]),
  };
}

const lines = (parts: string[]) => `${parts.join('\n')}\n`;
