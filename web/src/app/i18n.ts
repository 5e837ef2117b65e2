// The farm app's texts in English and Vietnamese. Keys ending in _one/_other are plural forms,
// chosen with Intl.PluralRules by the {n} parameter.
import { createContext, useContext } from 'react';

export type Language = 'en' | 'vi';
export const LANGUAGES: readonly Language[] = ['en', 'vi'];

const en = {
  'app.name': 'Furrow',
  'app.section': 'Manage',
  'app.skip': 'Skip to content',
  'app.language': 'Language',
  'app.primary_nav': 'Main',
  'nav.webhooks': 'Webhooks',
  'lang.en': 'English',
  'lang.vi': 'Tiếng Việt',

  'nav.more': 'More',
  'toast.close': 'Close this message',
  'error.page_not_found': 'There is no such page',
  'error.go_today': 'Go to Today',
  'nav.signed_in_as': 'Signed in as {name}',
  'state.loading': 'Loading…',
  'state.try_again': 'Try again',
  'owner_only.title': 'Only owners can use {section}',
  'owner_only.body':
    'You are signed in as {name}, a staff member of {tenant}. Ask the farm owner if something here needs to change.',
  'fielderror.https_required': 'The address must start with https:// so messages are sent encrypted.',
  'fielderror.url_invalid': 'This is not a web address. It should look like https://example.com/farm-events.',
  'fielderror.url_spaces': 'A web address cannot contain spaces.',
  'fielderror.url_credentials': 'Leave the user name and password out of the address.',
  'fielderror.url_unresolvable': 'No server called {host} was found. Check the spelling of the address.',
  'fielderror.url_private':
    'This address ({address}) is inside a private network. Furrow can only send to servers on the public internet.',
  'fielderror.required': 'Fill this in.',
  'fielderror.too_long': 'Use at most {limit} characters.',
  'fielderror.too_many': 'Choose at most {limit}.',
  'fielderror.choice': 'Choose one of the options offered.',
  'fielderror.taken': 'This is already used. Choose another.',
  'fielderror.not_found': 'This no longer exists. Choose another.',
  'log.body_label': 'Message body of delivery {id}',
  'secret.dismissed': 'The secret is hidden now.',

  'signin.title': 'Sign in',
  'signin.intro': 'Sign in with your farm account.',
  'signin.tenant': 'Farm code',
  'signin.tenant_hint': 'The code of your farm business, for example "demo".',
  'signin.username': 'Username',
  'signin.password': 'Password',
  'signin.submit': 'Sign in',
  'signin.submitting': 'Signing in…',
  'signin.required': 'Fill in the farm code, username and password.',
  'signin.expired': 'Your session has expired. Please sign in again.',
  'signin.signed_out': 'You have signed out.',

  'header.account': 'Signed in as {name} ({role}), {tenant}',
  'header.sign_out': 'Sign out',
  'role.owner': 'owner',
  'role.staff': 'staff',

  'error.network': 'Furrow could not be reached. Check your connection and try again.',
  'error.generic': 'Something went wrong: {message}',
  'error.not_found': 'This webhook does not exist (it may have been deleted).',
  'error.fix_fields': 'Please correct the highlighted fields.',

  'webhooks.title': 'Webhooks',
  'webhooks.intro':
    'Furrow sends a signed HTTPS message to each address below when something happens on your farm: a sensor alert, a device going offline, a confirmed harvest batch.',
  'webhooks.add': 'Add receiving address',
  'webhooks.loading': 'Loading webhooks…',
  'webhooks.empty_title': 'No webhooks yet',
  'webhooks.empty_body': 'Add the https:// address that should receive your farm’s events.',
  'webhooks.list_label': 'Receiving addresses',
  'webhooks.manage': 'Manage',
  'webhooks.manage_label': 'Manage {url}',
  'webhooks.deleted': 'The webhook {url} was deleted.',
  'webhooks.refresh': 'Refresh',

  'col.url': 'Address',
  'col.events': 'Events',
  'col.status': 'Status',
  'col.last_delivery': 'Last delivery',

  'status.active': 'Active',
  'status.paused': 'Paused',
  'paused.consecutive_failures_one': 'Paused after {n} delivery failed every attempt.',
  'paused.consecutive_failures_other': 'Paused after {n} deliveries in a row failed every attempt.',
  'paused.manual': 'Paused by the owner.',
  'paused.gone': 'Paused: the receiving address answered that it is gone (410).',
  'paused.other': 'Paused: {reason}',
  'held.count_one': '{n} delivery is held and will be sent when you re-enable it.',
  'held.count_other': '{n} deliveries are held and will be sent when you re-enable it.',
  'held.none': 'No deliveries are held.',

  'last.none': 'No deliveries yet',
  'last.summary': '{status}, {event}',

  'delivery.pending': 'Pending',
  'delivery.retrying': 'Retrying',
  'delivery.succeeded': 'Succeeded',
  'delivery.failed': 'Failed',
  'delivery.held': 'Held',

  'event.*': 'All events, including kinds added later',
  'event.iot.alert.raised': 'A sensor crosses a threshold',
  'event.iot.alert.resolved': 'A sensor alert is back to normal',
  'event.iot.device.offline': 'A device stops reporting',
  'event.iot.device.online': 'A silent device reports again',
  'event.harvest.batch.created': 'A harvest batch is declared and confirmed',
  'event.webhook.test': 'Test message',

  'form.add_title': 'Add a receiving address',
  'form.edit_title': 'Edit receiving address',
  'form.url': 'Receiving address',
  'form.url_hint': 'Must start with https:// and point to a server on the public internet.',
  'form.events': 'Events to send',
  'form.description': 'Description (optional)',
  'form.description_hint': 'A note for yourself, for example which system receives these events.',
  'form.create': 'Add receiving address',
  'form.save': 'Save changes',
  'form.saving': 'Saving…',
  'form.cancel': 'Cancel',
  'form.events_required': 'Select at least one event.',
  'form.saved': 'Changes saved.',

  'secret.title': 'Signing secret',
  'secret.once': 'Copy this secret now: you will not see it again.',
  'secret.use':
    'Your receiver uses it to check the X-Service-Signature header of every message. Keep it out of source code and logs.',
  'secret.copy': 'Copy secret',
  'secret.copied': 'Copied to the clipboard.',
  'secret.copy_failed': 'Copying failed: select the secret and copy it by hand.',
  'secret.done': 'I have saved the secret',
  'secret.created': 'Receiving address added.',
  'secret.rotated': 'Secret rotated. The previous secret no longer signs messages.',

  'detail.back': 'All webhooks',
  'detail.loading': 'Loading webhook…',
  'detail.settings': 'Settings',
  'detail.events': 'Events',
  'detail.description': 'Description',
  'detail.created': 'Created',
  'detail.id': 'Address ID',
  'detail.actions': 'Actions',
  'detail.send_test': 'Send test',
  'detail.sending_test': 'Sending…',
  'detail.test_sent': 'Test message sent. Its result appears in the delivery log.',
  'detail.edit': 'Edit',
  'detail.rotate': 'Rotate secret',
  'detail.enable': 'Re-enable',
  'detail.delete': 'Delete',
  'detail.enabled': 'Sending re-enabled.',
  'detail.paused_title': 'Sending to this address is paused',

  'rotate.title': 'Rotate the signing secret?',
  'rotate.body':
    'Furrow creates a new secret and shows it once. The current secret stops signing at once, so update your receiver right after.',
  'rotate.confirm': 'Rotate secret',

  'delete.title': 'Delete this webhook?',
  'delete.body':
    'Furrow stops sending events to {url} and its delivery log is removed. This cannot be undone.',
  'delete.confirm': 'Delete webhook',

  'enable.title': 'Re-enable this webhook?',
  'enable.body_one': '{n} held delivery will be sent to {url}.',
  'enable.body_other': '{n} held deliveries will be sent to {url}, oldest first.',
  'enable.body_none': 'No deliveries are held. New events will be sent to {url} again.',
  'enable.confirm': 'Re-enable',

  'dialog.cancel': 'Cancel',

  'log.title': 'Delivery log',
  'log.intro': 'The last 50 deliveries, newest first. The log updates itself while deliveries are under way.',
  'log.loading': 'Loading deliveries…',
  'log.empty': 'No deliveries yet. Send a test to see one here.',
  'log.updating': 'Updating…',
  'log.col.event': 'Event',
  'log.col.time': 'Time',
  'log.col.status': 'Status',
  'log.col.attempts': 'Attempts',
  'log.col.next': 'Next retry',
  'log.col.actions': 'Actions',
  'log.show': 'Details',
  'log.show_label': 'Details of delivery {id}',
  'log.redeliver': 'Redeliver',
  'log.redeliver_label': 'Redeliver {id}',
  'log.redelivered': 'Delivery {id} queued again.',
  'log.no_retry': '—',
  'log.delivery_id': 'Delivery ID',
  'log.attempts': 'Attempts',
  'log.no_attempts': 'No attempt yet.',
  'log.attempt': 'Attempt {n}',
  'log.attempt_status': 'Status code',
  'log.attempt_duration': 'Duration',
  'log.attempt_error': 'Error',
  'log.attempt_response': 'Response (first 1 KB)',
  'log.no_status': 'no answer',
  'log.duration_ms': '{n} ms',
  'log.request': 'Request',
  'log.headers': 'Request headers',
  'log.body': 'Body',
  'log.header_name': 'Name',
  'log.header_value': 'Value',

  'attack.title': 'Someone may be trying to guess a password',
  'attack.line_one': '"{username}": {n} failed sign-in in the last 24 hours, {from}, last at {time}.',
  'attack.line_other': '"{username}": {n} failed sign-ins in the last 24 hours, {from}, last at {time}.',
  'attack.from_one': 'from {n} address',
  'attack.from_other': 'from {n} addresses',
  'attack.locked': 'Sign-ins to this account are paused for everyone until {time}.',
  'attack.advice':
    'Each address is stopped after 10 wrong passwords in 15 minutes, so your own sign-in keeps working. If you do not know these attempts, choose a long password for these accounts.',
} as const;

export type MessageKey = keyof typeof en;

const vi: Record<MessageKey, string> = {
  'app.name': 'Furrow',
  'app.section': 'Quản lý',
  'app.skip': 'Chuyển đến nội dung',
  'app.language': 'Ngôn ngữ',
  'app.primary_nav': 'Điều hướng chính',
  'nav.webhooks': 'Webhook',
  'lang.en': 'English',
  'lang.vi': 'Tiếng Việt',

  'nav.more': 'Mục khác',
  'toast.close': 'Đóng thông báo này',
  'error.page_not_found': 'Không có trang này',
  'error.go_today': 'Về trang Hôm nay',
  'nav.signed_in_as': 'Đăng nhập: {name}',
  'state.loading': 'Đang tải…',
  'state.try_again': 'Thử lại',
  'owner_only.title': 'Chỉ chủ trang trại mới dùng được mục {section}',
  'owner_only.body':
    'Bạn đang đăng nhập với tên {name}, nhân viên của {tenant}. Hãy hỏi chủ trang trại nếu cần thay đổi gì ở đây.',
  'fielderror.https_required': 'Địa chỉ phải bắt đầu bằng https:// để tin nhắn được gửi có mã hóa.',
  'fielderror.url_invalid': 'Đây không phải địa chỉ web. Địa chỉ có dạng https://example.com/su-kien.',
  'fielderror.url_spaces': 'Địa chỉ web không được có khoảng trắng.',
  'fielderror.url_credentials': 'Đừng ghi tên đăng nhập và mật khẩu vào địa chỉ.',
  'fielderror.url_unresolvable': 'Không tìm thấy máy chủ tên {host}. Hãy kiểm tra lại cách viết địa chỉ.',
  'fielderror.url_private':
    'Địa chỉ này ({address}) thuộc mạng nội bộ. Furrow chỉ gửi được tới máy chủ công khai trên Internet.',
  'fielderror.required': 'Vui lòng điền mục này.',
  'fielderror.too_long': 'Tối đa {limit} ký tự.',
  'fielderror.too_many': 'Chọn tối đa {limit}.',
  'fielderror.choice': 'Hãy chọn một trong các lựa chọn có sẵn.',
  'fielderror.taken': 'Giá trị này đã được dùng. Hãy chọn giá trị khác.',
  'fielderror.not_found': 'Mục này không còn tồn tại. Hãy chọn mục khác.',
  'log.body_label': 'Nội dung tin nhắn của lần gửi {id}',
  'secret.dismissed': 'Khóa bí mật đã được ẩn.',

  'signin.title': 'Đăng nhập',
  'signin.intro': 'Đăng nhập bằng tài khoản trang trại của bạn.',
  'signin.tenant': 'Mã doanh nghiệp',
  'signin.tenant_hint': 'Mã của doanh nghiệp trang trại, ví dụ "demo".',
  'signin.username': 'Tên đăng nhập',
  'signin.password': 'Mật khẩu',
  'signin.submit': 'Đăng nhập',
  'signin.submitting': 'Đang đăng nhập…',
  'signin.required': 'Vui lòng nhập mã doanh nghiệp, tên đăng nhập và mật khẩu.',
  'signin.expired': 'Phiên làm việc đã hết hạn. Vui lòng đăng nhập lại.',
  'signin.signed_out': 'Bạn đã đăng xuất.',

  'header.account': 'Đăng nhập với tên {name} ({role}), {tenant}',
  'header.sign_out': 'Đăng xuất',
  'role.owner': 'chủ trang trại',
  'role.staff': 'nhân viên',

  'error.network': 'Không kết nối được với Furrow. Hãy kiểm tra mạng và thử lại.',
  'error.generic': 'Đã xảy ra lỗi: {message}',
  'error.not_found': 'Webhook này không tồn tại (có thể đã bị xóa).',
  'error.fix_fields': 'Vui lòng sửa các trường được đánh dấu.',

  'webhooks.title': 'Webhook',
  'webhooks.intro':
    'Furrow gửi một tin nhắn HTTPS có chữ ký tới từng địa chỉ dưới đây khi trang trại có sự kiện: cảnh báo cảm biến, thiết bị mất kết nối, lô thu hoạch được xác nhận.',
  'webhooks.add': 'Thêm địa chỉ nhận',
  'webhooks.loading': 'Đang tải danh sách webhook…',
  'webhooks.empty_title': 'Chưa có webhook nào',
  'webhooks.empty_body': 'Thêm địa chỉ https:// sẽ nhận các sự kiện của trang trại.',
  'webhooks.list_label': 'Các địa chỉ nhận sự kiện',
  'webhooks.manage': 'Quản lý',
  'webhooks.manage_label': 'Quản lý {url}',
  'webhooks.deleted': 'Đã xóa webhook {url}.',
  'webhooks.refresh': 'Làm mới',

  'col.url': 'Địa chỉ',
  'col.events': 'Sự kiện',
  'col.status': 'Trạng thái',
  'col.last_delivery': 'Lần gửi gần nhất',

  'status.active': 'Đang hoạt động',
  'status.paused': 'Tạm dừng',
  'paused.consecutive_failures_one': 'Tạm dừng vì {n} lần gửi thất bại ở mọi lần thử.',
  'paused.consecutive_failures_other': 'Tạm dừng vì {n} lần gửi liên tiếp thất bại ở mọi lần thử.',
  'paused.manual': 'Chủ trang trại đã tạm dừng.',
  'paused.gone': 'Tạm dừng: địa chỉ nhận trả lời rằng nó không còn nữa (410).',
  'paused.other': 'Tạm dừng: {reason}',
  'held.count_one': '{n} lần gửi đang được giữ lại và sẽ được gửi khi bạn bật lại.',
  'held.count_other': '{n} lần gửi đang được giữ lại và sẽ được gửi khi bạn bật lại.',
  'held.none': 'Không có lần gửi nào đang được giữ lại.',

  'last.none': 'Chưa gửi lần nào',
  'last.summary': '{status}, {event}',

  'delivery.pending': 'Đang chờ',
  'delivery.retrying': 'Đang thử lại',
  'delivery.succeeded': 'Thành công',
  'delivery.failed': 'Thất bại',
  'delivery.held': 'Đang giữ lại',

  'event.*': 'Tất cả sự kiện, kể cả các loại thêm sau này',
  'event.iot.alert.raised': 'Cảm biến vượt ngưỡng',
  'event.iot.alert.resolved': 'Cảnh báo cảm biến đã trở lại bình thường',
  'event.iot.device.offline': 'Thiết bị ngừng gửi dữ liệu',
  'event.iot.device.online': 'Thiết bị đã gửi dữ liệu trở lại',
  'event.harvest.batch.created': 'Lô thu hoạch được khai báo và xác nhận',
  'event.webhook.test': 'Tin nhắn thử',

  'form.add_title': 'Thêm địa chỉ nhận sự kiện',
  'form.edit_title': 'Sửa địa chỉ nhận sự kiện',
  'form.url': 'Địa chỉ nhận',
  'form.url_hint': 'Phải bắt đầu bằng https:// và trỏ tới một máy chủ công khai trên Internet.',
  'form.events': 'Sự kiện cần gửi',
  'form.description': 'Mô tả (không bắt buộc)',
  'form.description_hint': 'Ghi chú cho bạn, ví dụ hệ thống nào nhận các sự kiện này.',
  'form.create': 'Thêm địa chỉ nhận',
  'form.save': 'Lưu thay đổi',
  'form.saving': 'Đang lưu…',
  'form.cancel': 'Hủy',
  'form.events_required': 'Chọn ít nhất một sự kiện.',
  'form.saved': 'Đã lưu thay đổi.',

  'secret.title': 'Khóa bí mật để ký',
  'secret.once': 'Hãy sao chép khóa này ngay: bạn sẽ không thấy lại nó.',
  'secret.use':
    'Hệ thống nhận dùng khóa này để kiểm tra tiêu đề X-Service-Signature của mỗi tin nhắn. Đừng để khóa trong mã nguồn hay nhật ký.',
  'secret.copy': 'Sao chép khóa',
  'secret.copied': 'Đã sao chép vào bộ nhớ tạm.',
  'secret.copy_failed': 'Không sao chép được: hãy chọn khóa và sao chép thủ công.',
  'secret.done': 'Tôi đã lưu khóa',
  'secret.created': 'Đã thêm địa chỉ nhận.',
  'secret.rotated': 'Đã đổi khóa. Khóa cũ không còn được dùng để ký.',

  'detail.back': 'Tất cả webhook',
  'detail.loading': 'Đang tải webhook…',
  'detail.settings': 'Cài đặt',
  'detail.events': 'Sự kiện',
  'detail.description': 'Mô tả',
  'detail.created': 'Ngày tạo',
  'detail.id': 'Mã địa chỉ nhận',
  'detail.actions': 'Thao tác',
  'detail.send_test': 'Gửi thử',
  'detail.sending_test': 'Đang gửi…',
  'detail.test_sent': 'Đã gửi tin nhắn thử. Kết quả hiện trong nhật ký gửi.',
  'detail.edit': 'Sửa',
  'detail.rotate': 'Đổi khóa bí mật',
  'detail.enable': 'Bật lại',
  'detail.delete': 'Xóa',
  'detail.enabled': 'Đã bật lại địa chỉ nhận.',
  'detail.paused_title': 'Địa chỉ nhận này đang tạm dừng',

  'rotate.title': 'Đổi khóa bí mật?',
  'rotate.body':
    'Furrow tạo khóa mới và chỉ hiển thị một lần. Khóa hiện tại ngừng ký ngay lập tức, vì vậy hãy cập nhật hệ thống nhận ngay sau đó.',
  'rotate.confirm': 'Đổi khóa',

  'delete.title': 'Xóa webhook này?',
  'delete.body': 'Furrow sẽ ngừng gửi sự kiện tới {url} và nhật ký gửi sẽ bị xóa. Không thể hoàn tác.',
  'delete.confirm': 'Xóa webhook',

  'enable.title': 'Bật lại webhook này?',
  'enable.body_one': '{n} lần gửi đang giữ lại sẽ được gửi tới {url}.',
  'enable.body_other': '{n} lần gửi đang giữ lại sẽ được gửi tới {url}, cũ nhất trước.',
  'enable.body_none': 'Không có lần gửi nào đang giữ lại. Sự kiện mới sẽ lại được gửi tới {url}.',
  'enable.confirm': 'Bật lại',

  'dialog.cancel': 'Hủy',

  'log.title': 'Nhật ký gửi',
  'log.intro': '50 lần gửi gần nhất, mới nhất trước. Nhật ký tự cập nhật khi đang có lần gửi.',
  'log.loading': 'Đang tải nhật ký…',
  'log.empty': 'Chưa gửi lần nào. Hãy gửi thử để thấy kết quả ở đây.',
  'log.updating': 'Đang cập nhật…',
  'log.col.event': 'Sự kiện',
  'log.col.time': 'Thời gian',
  'log.col.status': 'Trạng thái',
  'log.col.attempts': 'Số lần thử',
  'log.col.next': 'Thử lại lúc',
  'log.col.actions': 'Thao tác',
  'log.show': 'Chi tiết',
  'log.show_label': 'Chi tiết lần gửi {id}',
  'log.redeliver': 'Gửi lại',
  'log.redeliver_label': 'Gửi lại {id}',
  'log.redelivered': 'Đã xếp lần gửi {id} để gửi lại.',
  'log.no_retry': '—',
  'log.delivery_id': 'Mã lần gửi',
  'log.attempts': 'Các lần thử',
  'log.no_attempts': 'Chưa có lần thử nào.',
  'log.attempt': 'Lần thử {n}',
  'log.attempt_status': 'Mã trạng thái',
  'log.attempt_duration': 'Thời gian',
  'log.attempt_error': 'Lỗi',
  'log.attempt_response': 'Phản hồi (1 KB đầu)',
  'log.no_status': 'không có phản hồi',
  'log.duration_ms': '{n} ms',
  'log.request': 'Yêu cầu',
  'log.headers': 'Tiêu đề yêu cầu',
  'log.body': 'Nội dung',
  'log.header_name': 'Tên',
  'log.header_value': 'Giá trị',

  'attack.title': 'Có thể ai đó đang đoán mật khẩu',
  'attack.line_one': '"{username}": {n} lần đăng nhập sai trong 24 giờ qua, {from}, lần cuối lúc {time}.',
  'attack.line_other': '"{username}": {n} lần đăng nhập sai trong 24 giờ qua, {from}, lần cuối lúc {time}.',
  'attack.from_one': 'từ {n} địa chỉ',
  'attack.from_other': 'từ {n} địa chỉ',
  'attack.locked': 'Tài khoản này tạm dừng đăng nhập với mọi người đến {time}.',
  'attack.advice':
    'Mỗi địa chỉ bị chặn sau 10 lần sai mật khẩu trong 15 phút, nên bạn vẫn đăng nhập được bình thường. Nếu bạn không biết những lần thử này, hãy đặt mật khẩu dài cho các tài khoản đó.',
};

const catalogues: Record<Language, Record<MessageKey, string>> = { en, vi };

export type Params = Record<string, string | number>;
export type Translate = (key: MessageKey, params?: Params) => string;

/** Base keys that have _one/_other forms. */
type PluralBase<K> = K extends `${infer B}_other` ? B : never;
export type PluralKey = PluralBase<MessageKey>;

export function makeTranslator(language: Language): {
  t: Translate;
  plural: (key: PluralKey, n: number, params?: Params) => string;
} {
  const messages = catalogues[language];
  const rules = new Intl.PluralRules(language);
  const t: Translate = (key, params = {}) =>
    messages[key].replace(/\{(\w+)\}/g, (whole, name: string) =>
      name in params ? String(params[name]) : whole,
    );
  const plural = (key: PluralKey, n: number, params: Params = {}) => {
    const form = rules.select(n) === 'one' ? 'one' : 'other';
    return t(`${key}_${form}` as MessageKey, { n, ...params });
  };
  return { t, plural };
}

export function isMessageKey(key: string): key is MessageKey {
  return key in en;
}

/** The language the person picked in this browser, if they did. */
export function pickedLanguage(): Language | null {
  const saved = localStorage.getItem('furrow.language');
  return saved === 'en' || saved === 'vi' ? saved : null;
}

/** Picked in this browser, else the browser's; after sign-in the account's language comes before the browser's. */
export function initialLanguage(): Language {
  return (
    pickedLanguage() ?? (navigator.languages.some((l) => l.toLowerCase().startsWith('vi')) ? 'vi' : 'en')
  );
}

export interface I18n {
  language: Language;
  setLanguage: (language: Language) => void;
  t: Translate;
  plural: (key: PluralKey, n: number, params?: Params) => string;
}

export const I18nContext = createContext<I18n>({
  language: 'en',
  setLanguage: () => {},
  ...makeTranslator('en'),
});

export function useI18n(): I18n {
  return useContext(I18nContext);
}
