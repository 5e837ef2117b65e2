// The API's field errors in plain words. A 422 names each field with a message from the server's
// catalogue ("url must use https", "url trỏ tới địa chỉ không công khai: 10.0.0.7 là private (RFC 1918)"),
// in the request's language. Known messages, in either language, become the app's own words; an
// unknown one is shown as the API wrote it, without the field's technical name.
import type { MessageKey, Params, Translate } from '../app/i18n';
import type { FieldError } from './client';

interface Rule {
  /** The server's message in English and Vietnamese (after the field name). */
  match: RegExp[];
  key: MessageKey;
  /** Parameters taken from the match's named groups. */
}

const RULES: Rule[] = [
  { match: [/^must use https$/, /^phải dùng https$/], key: 'fielderror.https_required' },
  { match: [/^is not a valid URL$/, /^không phải URL hợp lệ$/], key: 'fielderror.url_invalid' },
  { match: [/^must not contain spaces/, /^không được chứa khoảng trắng/], key: 'fielderror.url_spaces' },
  {
    match: [/^must not contain a user name/, /^không được chứa tên đăng nhập/],
    key: 'fielderror.url_credentials',
  },
  {
    match: [
      /^names a host that does not resolve \((?<host>.*)\)$/,
      /^có tên máy chủ không phân giải được \((?<host>.*)\)$/,
    ],
    key: 'fielderror.url_unresolvable',
  },
  {
    match: [
      /^points to a non-public address: (?<address>\S+) is /,
      /^trỏ tới địa chỉ không công khai: (?<address>\S+) là /,
    ],
    key: 'fielderror.url_private',
  },
  {
    match: [/^is required$/, /^là bắt buộc$/, /^must not be empty$/, /^không được để trống$/],
    key: 'fielderror.required',
  },
  {
    match: [/^must be at most (?<limit>\d+) characters$/, /^tối đa (?<limit>\d+) ký tự$/],
    key: 'fielderror.too_long',
  },
  {
    match: [/^must have at most (?<limit>\d+) items$/, /^tối đa (?<limit>\d+) phần tử$/],
    key: 'fielderror.too_many',
  },
  { match: [/^must be one of: /, /^phải là một trong: /], key: 'fielderror.choice' },
  { match: [/^is already taken$/, /^đã được sử dụng$/], key: 'fielderror.taken' },
  { match: [/^does not exist$/, /^không tồn tại$/], key: 'fielderror.not_found' },
];

export function plainFieldError(error: FieldError, t: Translate): string {
  // The API writes "<field> <reason>"; the field is shown by the form, so only the reason is kept.
  const reason = error.message.startsWith(`${error.field} `)
    ? error.message.slice(error.field.length + 1)
    : error.message;
  for (const rule of RULES) {
    for (const pattern of rule.match) {
      const found = pattern.exec(reason);
      if (found) return t(rule.key, { ...(found.groups as Params | undefined) });
    }
  }
  return reason.charAt(0).toUpperCase() + reason.slice(1);
}
