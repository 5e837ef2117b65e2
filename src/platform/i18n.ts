// One message catalogue. English by default, Vietnamese for clients that ask for it.
// Clients never need to parse these texts: status codes, `meta.code` (errors.ts) and field names
// carry the meaning.

export type Language = 'en' | 'vi';
export const LANGUAGES: readonly Language[] = ['en', 'vi'];

const en = {
  'auth.login_ok': 'Logged in successfully',
  'auth.logout_ok': 'Logged out successfully',
  'auth.bad_credentials': 'The account or password is incorrect',
  'auth.token_invalid': 'Token has expired or is invalid',
  'auth.forbidden': 'You do not have permission to do this',
  'auth.owner_only': 'Only the farm owner can do this',
  'auth.too_many_attempts': 'Too many login attempts; try again in {seconds} seconds',
  'auth.session_only': 'An API key cannot do this; sign in as a person to do it',
  'http.bad_request': 'The request could not be read',
  'http.malformed_json': 'The request body is not valid JSON',
  'http.not_found': 'Not found',
  'http.route_not_found': 'There is no {method} {path}',
  'http.method_not_allowed': 'Method {method} is not allowed here; allowed: {allowed}',
  'http.conflict': 'This conflicts with an existing record',
  'http.precondition_failed': 'The record changed since you read it; read it again',
  'http.body_too_large': 'The request body is larger than {limit} bytes',
  'http.unsupported_media_type':
    'Content type {type} is not supported; send application/json or application/x-www-form-urlencoded',
  'http.content_type_missing':
    'The request has a body but no Content-Type; send application/json or application/x-www-form-urlencoded',
  'http.bad_url_encoding':
    'The request path is not valid percent-encoding: a % must be followed by two hexadecimal digits of UTF-8',
  'http.bad_request_line':
    'The request could not be read: its path, query or headers hold characters that must be percent-encoded (as UTF-8)',
  'http.json_too_deep': 'The request body nests arrays and objects deeper than {limit} levels',
  'http.request_timeout': 'The request was not received in time',
  'http.headers_too_large': 'The request headers are too large',
  'http.validation_failed': 'The given data was invalid',
  'http.rate_limited': 'Too many requests; try again in {seconds} seconds',
  'http.internal': 'Internal server error',
  'http.unavailable': 'The service is not ready',
  'db.unavailable': 'The database is unavailable: {reason}; try again in {seconds} seconds',
  'db.reason.unreachable': 'it cannot be reached',
  'db.reason.restarting': 'it is shutting down or starting up',
  'db.reason.connection_lost': 'the connection to it was lost',
  'db.reason.timeout': 'it did not answer in time',
  'db.reason.no_free_connections': 'it has no free connections',
  'db.reason.locked': 'another process holds its write lock',
  'http.updated': 'Updated successfully',
  'http.deleted': 'Deleted successfully',
  'field.required': 'is required',
  'field.type': 'must be {type}',
  'field.min_length': 'must not be empty',
  'field.max_length': 'must be at most {limit} characters',
  'field.minimum': 'must be at least {limit}',
  'field.maximum': 'must be at most {limit}',
  'field.exclusive_minimum': 'must be greater than {limit}',
  'field.enum': 'must be one of: {values}',
  'field.pattern': 'has an invalid format',
  'field.format': 'must be a valid {format}',
  'field.max_items': 'must have at most {limit} items',
  'field.invalid': 'is invalid',
  'field.not_found': 'does not exist',
  'field.taken': 'is already taken',
  'field.timestamp': 'must be a timestamp (YYYY-MM-DD HH:MM:SS or ISO 8601)',
  'field.future': 'must be in the future',
  'field.too_deep': 'is nested too deeply (at most {limit} levels)',
  'field.not_null': 'must not be null',
  'field.wrong_password': 'is not your current password',
  'field.text': 'must be text without NUL characters or unpaired surrogates',
  'field.page_too_large':
    'makes a page larger than {megabytes} MB; ask for at most {fits} records per page here',
  'field.idempotency_key': 'must be 1 to 255 printable ASCII characters',
  'idempotency.key_reused':
    'This Idempotency-Key was already used with another request (another path or body); send a new key for a new request',
  'idempotency.key_in_use':
    'A request with this Idempotency-Key is still running; try again in {seconds} seconds',
  // IoT and harvest
  'iot.rule_target': 'a rule aims at exactly one of device_id and zone_id',
  'iot.metric_pattern': 'must be lower-case letters, digits, "_" and "." (for example soil_moisture)',
  'iot.recorded_in_future': 'is more than an hour ahead of the server clock',
  'iot.clear_at_most_threshold':
    'must be at most the threshold ({threshold}) for operator {operator}: it is the value readings come back to',
  'iot.clear_at_least_threshold':
    'must be at least the threshold ({threshold}) for operator {operator}: it is the value readings come back to',
  'iot.series_too_long':
    'spans {buckets} buckets of {bucket}; at most {limit} per answer (narrow from and to, or take a larger bucket)',
  'iot.series_reversed': 'must not be before from',
  'iot.mqtt.url_scheme': 'must be mqtt://host:port or mqtts://host:port, with nothing after the port',
  'iot.mqtt.url_credentials': 'must not contain a user name or password (send them as username and password)',
  'iot.mqtt.topic_wildcard':
    'is not a valid MQTT topic filter: "+" and "#" each fill a whole level, and "#" comes last (e.g. farm/+/soil, farm/#)',
  'iot.mqtt.topic_overlap': 'overlaps {other}: a message matching both would be stored twice',
  'iot.dev_eui_pattern': 'must be 16 hexadecimal digits (a LoRaWAN DevEUI such as 70b3d57ed0051234)',
  'iot.dev_eui_taken': 'Another device of this farm already has DevEUI {dev_eui}',
  'iot.too_many_values': 'holds {count} numeric values; at most {limit} are read from one event',
  'iot.chirpstack_event_unknown':
    'The event query parameter must be one of: {events} (ChirpStack adds it to every event it posts)',
  'iot.protobuf_body':
    'Furrow reads network-server events as JSON, not Protobuf ({type}): set the ChirpStack HTTP integration’s payload encoding (marshaler) to JSON',
  'harvest.already_confirmed': 'This harvest batch is already confirmed',
  // Webhooks
  'webhook.url.invalid': 'is not a valid URL',
  'webhook.url.whitespace': 'must not contain spaces or control characters (percent-encode them, e.g. %20)',
  'webhook.url.https_required': 'must use https',
  'webhook.url.credentials': 'must not contain a user name or password',
  'webhook.url.unresolvable': 'names a host that does not resolve ({host})',
  'webhook.url.private_address': 'points to a non-public address: {address} is {reason}',
  'webhook.delivery_in_progress': 'This delivery is still queued; it can be redelivered once it has finished',
  'webhook.test_queue_full':
    'This endpoint already has {limit} test messages waiting to be sent; try again in {seconds} seconds',
  'webhook.test_rate_limited':
    'At most {limit} test messages a minute can be sent to an endpoint; try again in {seconds} seconds',
  'webhook.filter_kind': 'is not an event kind an endpoint can select ({kinds})',
  'webhook.filter_fields': 'must be an object of data fields, each with the values it may have',
  'webhook.filter_field_name':
    'must be the name of a top-level data field: letters, digits and "_", at most 64, not starting with a digit',
  'webhook.filter_values': 'must be a list of 1 to {limit} values, each a string, number or boolean',
  'webhook.until_before_since': 'must not be before since',
  'webhook.since_not_before_until': 'must be before until',
  'webhook.recover_too_many':
    'selects {count} failed deliveries; at most {limit} can be sent again at once: narrow the window',
  'webhook.header.too_many': 'holds {count} headers; at most {limit} can be set',
  'webhook.header.name_invalid':
    "has a name that is not an HTTP header name ({name}): use letters, digits and !#$%&'*+-.^_`|~",
  'webhook.header.name_too_long': 'has a name longer than {limit} characters',
  'webhook.header.reserved_own': 'cannot be set: {name} is one of the headers Furrow sets and signs itself',
  'webhook.header.reserved_http':
    'cannot be set: {name} belongs to HTTP itself (content-*, host and connection headers)',
  'webhook.header.duplicate': 'is given twice ({name}): header names ignore case',
  'webhook.header.value_invalid': 'must be printable text on one line (no line breaks or control characters)',
  'webhook.header.value_too_long': 'is longer than {limit} characters',
  'webhook.event_type_unknown': 'must be one of the event kinds: {values}',
  // Webhook event catalogue (GET /api/webhooks/event-types)
  'webhook.event.iot.alert.raised':
    'A sensor reading crossed a threshold rule (for as long as the rule asks): an alert is raised.',
  'webhook.event.iot.alert.resolved':
    "A reading came back past the rule's clear threshold: the active alert is resolved.",
  'webhook.event.iot.device.offline':
    'A device sent no reading or heartbeat for longer than its heartbeat timeout.',
  'webhook.event.iot.device.online': 'A device that was offline reported again (a reading or a heartbeat).',
  'webhook.event.harvest.batch.created': 'A harvest batch was declared and confirmed by an owner.',
  'webhook.event.webhook.endpoint.paused':
    "Another of the farm's webhook endpoints was paused (by an owner, after repeated failures, or because its receiver answered 410 Gone); its events wait until it is enabled.",
  'webhook.event.webhook.test': 'A test message, sent on request; it never counts toward pausing.',
  // Notifications
  'notifications.unknown_user': 'is not a user of this farm: {id}',
  // Resources
  'users.self_change': 'You cannot delete your own account or remove your own owner role',
  'account.password_changed': 'Your password has been changed',
  'diary.staff_own_tasks': 'Staff can only mark their own tasks done and change their description and end',
  'places.farm_in_use':
    'This farm still holds blocks ({blocks}), zones ({zones}) and parcels ({parcels}): move them to another farm or delete them first',
  'places.block_in_use':
    'This block still holds parcels ({parcels}): move them to another block or delete them first',
  'places.zone_in_use':
    'This zone still holds parcels ({parcels}): move them to another zone or delete them first',
} as const;

export type MessageKey = keyof typeof en;

const vi: Record<MessageKey, string> = {
  'auth.login_ok': 'Đăng nhập thành công',
  'auth.logout_ok': 'Đăng xuất thành công',
  'auth.bad_credentials': 'Tài khoản hoặc mật khẩu không đúng',
  'auth.token_invalid': 'Token đã hết hạn hoặc không hợp lệ',
  'auth.forbidden': 'Bạn không có quyền thực hiện thao tác này',
  'auth.owner_only': 'Chỉ chủ trang trại mới được thực hiện thao tác này',
  'auth.too_many_attempts': 'Đăng nhập sai quá nhiều lần; vui lòng thử lại sau {seconds} giây',
  'auth.session_only':
    'Khóa API không thực hiện được thao tác này; hãy đăng nhập bằng tài khoản của một người',
  'http.bad_request': 'Không đọc được yêu cầu',
  'http.malformed_json': 'Nội dung yêu cầu không phải JSON hợp lệ',
  'http.not_found': 'Không tìm thấy',
  'http.route_not_found': 'Không có {method} {path}',
  'http.method_not_allowed': 'Phương thức {method} không được phép ở đây; cho phép: {allowed}',
  'http.conflict': 'Dữ liệu bị trùng với một bản ghi đã có',
  'http.precondition_failed': 'Bản ghi đã thay đổi kể từ lúc bạn đọc; hãy đọc lại',
  'http.body_too_large': 'Nội dung yêu cầu lớn hơn {limit} byte',
  'http.unsupported_media_type':
    'Kiểu nội dung {type} không được hỗ trợ; hãy gửi application/json hoặc application/x-www-form-urlencoded',
  'http.content_type_missing':
    'Yêu cầu có nội dung nhưng không có Content-Type; hãy gửi application/json hoặc application/x-www-form-urlencoded',
  'http.bad_url_encoding':
    'Đường dẫn của yêu cầu không được mã hóa phần trăm đúng: sau % phải là hai chữ số thập lục phân của UTF-8',
  'http.bad_request_line':
    'Không đọc được yêu cầu: đường dẫn, tham số hoặc tiêu đề chứa ký tự phải được mã hóa phần trăm (theo UTF-8)',
  'http.json_too_deep': 'Nội dung yêu cầu lồng mảng và đối tượng sâu hơn {limit} cấp',
  'http.request_timeout': 'Yêu cầu không được gửi đến kịp thời',
  'http.headers_too_large': 'Tiêu đề của yêu cầu quá lớn',
  'http.validation_failed': 'Dữ liệu không hợp lệ',
  'http.rate_limited': 'Quá nhiều yêu cầu; vui lòng thử lại sau {seconds} giây',
  'http.internal': 'Lỗi máy chủ',
  'http.unavailable': 'Dịch vụ chưa sẵn sàng',
  'db.unavailable': 'Cơ sở dữ liệu tạm thời không dùng được: {reason}; vui lòng thử lại sau {seconds} giây',
  'db.reason.unreachable': 'không kết nối tới được',
  'db.reason.restarting': 'đang tắt hoặc đang khởi động',
  'db.reason.connection_lost': 'kết nối tới nó bị mất',
  'db.reason.timeout': 'nó không trả lời kịp thời',
  'db.reason.no_free_connections': 'nó không còn kết nối trống',
  'db.reason.locked': 'một tiến trình khác đang giữ khóa ghi',
  'http.updated': 'Cập nhật thành công',
  'http.deleted': 'Xóa thành công',
  'field.required': 'là bắt buộc',
  'field.type': 'phải là {type}',
  'field.min_length': 'không được để trống',
  'field.max_length': 'tối đa {limit} ký tự',
  'field.minimum': 'phải lớn hơn hoặc bằng {limit}',
  'field.maximum': 'phải nhỏ hơn hoặc bằng {limit}',
  'field.exclusive_minimum': 'phải lớn hơn {limit}',
  'field.enum': 'phải là một trong: {values}',
  'field.pattern': 'không đúng định dạng',
  'field.format': 'phải là {format} hợp lệ',
  'field.max_items': 'tối đa {limit} phần tử',
  'field.invalid': 'không hợp lệ',
  'field.not_found': 'không tồn tại',
  'field.taken': 'đã được sử dụng',
  'field.timestamp': 'phải là thời điểm (YYYY-MM-DD HH:MM:SS hoặc ISO 8601)',
  'field.future': 'phải là một thời điểm trong tương lai',
  'field.too_deep': 'lồng nhau quá sâu (tối đa {limit} cấp)',
  'field.not_null': 'không được là null',
  'field.wrong_password': 'không đúng mật khẩu hiện tại',
  'field.text': 'phải là văn bản không chứa ký tự NUL hay nửa cặp surrogate',
  'field.page_too_large':
    'làm một trang lớn hơn {megabytes} MB; hãy lấy tối đa {fits} bản ghi mỗi trang ở đây',
  'field.idempotency_key': 'phải gồm 1 đến 255 ký tự ASCII in được',
  'idempotency.key_reused':
    'Idempotency-Key này đã được dùng cho một yêu cầu khác (đường dẫn hoặc nội dung khác); hãy gửi khóa mới cho yêu cầu mới',
  'idempotency.key_in_use':
    'Một yêu cầu với Idempotency-Key này vẫn đang chạy; vui lòng thử lại sau {seconds} giây',
  // IoT and harvest
  'iot.rule_target': 'mỗi quy tắc áp dụng cho đúng một trong device_id và zone_id',
  'iot.metric_pattern': 'chỉ gồm chữ thường, chữ số, "_" và "." (ví dụ soil_moisture)',
  'iot.recorded_in_future': 'sớm hơn đồng hồ máy chủ quá một giờ',
  'iot.clear_at_most_threshold':
    'phải nhỏ hơn hoặc bằng ngưỡng ({threshold}) với toán tử {operator}: đó là mức giá trị trở lại bình thường',
  'iot.clear_at_least_threshold':
    'phải lớn hơn hoặc bằng ngưỡng ({threshold}) với toán tử {operator}: đó là mức giá trị trở lại bình thường',
  'iot.series_too_long':
    'trải qua {buckets} khoảng {bucket}; tối đa {limit} khoảng mỗi lần (thu hẹp from và to, hoặc chọn khoảng lớn hơn)',
  'iot.mqtt.url_scheme': 'phải có dạng mqtt://máy-chủ:cổng hoặc mqtts://máy-chủ:cổng, không có gì sau cổng',
  'iot.mqtt.url_credentials':
    'không được chứa tên đăng nhập hoặc mật khẩu (hãy gửi chúng trong username và password)',
  'iot.mqtt.topic_wildcard':
    'không phải bộ lọc chủ đề MQTT hợp lệ: "+" và "#" phải chiếm trọn một cấp, và "#" phải ở cuối (ví dụ farm/+/soil, farm/#)',
  'iot.mqtt.topic_overlap': 'trùng phạm vi với {other}: một tin khớp cả hai sẽ bị lưu hai lần',
  'iot.series_reversed': 'không được trước from',
  'iot.dev_eui_pattern': 'phải gồm 16 chữ số thập lục phân (DevEUI LoRaWAN, ví dụ 70b3d57ed0051234)',
  'iot.dev_eui_taken': 'Một thiết bị khác của trang trại đã có DevEUI {dev_eui}',
  'iot.too_many_values': 'chứa {count} giá trị số; mỗi sự kiện chỉ đọc tối đa {limit} giá trị',
  'iot.chirpstack_event_unknown':
    'Tham số event phải là một trong: {events} (ChirpStack tự thêm tham số này vào mỗi sự kiện nó gửi)',
  'iot.protobuf_body':
    'Furrow đọc sự kiện của máy chủ mạng ở dạng JSON, không phải Protobuf ({type}): hãy đặt kiểu mã hóa (marshaler) của tích hợp HTTP ChirpStack là JSON',
  'harvest.already_confirmed': 'Lô thu hoạch này đã được xác nhận',
  // Webhooks
  'webhook.url.invalid': 'không phải URL hợp lệ',
  'webhook.url.whitespace': 'không được chứa khoảng trắng hay ký tự điều khiển (hãy mã hóa, ví dụ %20)',
  'webhook.url.https_required': 'phải dùng https',
  'webhook.url.credentials': 'không được chứa tên đăng nhập hoặc mật khẩu',
  'webhook.url.unresolvable': 'có tên máy chủ không phân giải được ({host})',
  'webhook.url.private_address': 'trỏ tới địa chỉ không công khai: {address} là {reason}',
  'webhook.delivery_in_progress': 'Lần gửi này vẫn đang chờ; chỉ gửi lại được sau khi đã kết thúc',
  'webhook.test_queue_full':
    'Điểm nhận này đã có {limit} tin nhắn thử đang chờ gửi; vui lòng thử lại sau {seconds} giây',
  'webhook.test_rate_limited':
    'Mỗi điểm nhận chỉ được gửi tối đa {limit} tin nhắn thử mỗi phút; vui lòng thử lại sau {seconds} giây',
  'webhook.filter_kind': 'không phải loại sự kiện mà điểm nhận có thể chọn ({kinds})',
  'webhook.filter_fields':
    'phải là một đối tượng gồm các trường dữ liệu, mỗi trường kèm các giá trị được phép',
  'webhook.filter_field_name':
    'phải là tên một trường dữ liệu cấp ngoài cùng: chữ cái, chữ số và "_", tối đa 64 ký tự, không bắt đầu bằng chữ số',
  'webhook.filter_values':
    'phải là danh sách từ 1 đến {limit} giá trị, mỗi giá trị là chuỗi, số hoặc boolean',
  'webhook.until_before_since': 'không được trước since',
  'webhook.since_not_before_until': 'phải trước until',
  'webhook.recover_too_many':
    'chọn {count} lần gửi thất bại; mỗi lần chỉ gửi lại được tối đa {limit}: hãy thu hẹp khoảng thời gian',
  'webhook.header.too_many': 'có {count} tiêu đề; chỉ được đặt tối đa {limit}',
  'webhook.header.name_invalid':
    "có tên không phải tên tiêu đề HTTP ({name}): dùng chữ cái, chữ số và !#$%&'*+-.^_`|~",
  'webhook.header.name_too_long': 'có tên dài hơn {limit} ký tự',
  'webhook.header.reserved_own': 'không được đặt: {name} là tiêu đề do Furrow tự đặt và ký',
  'webhook.header.reserved_http':
    'không được đặt: {name} thuộc về chính HTTP (content-*, host và các tiêu đề kết nối)',
  'webhook.header.duplicate': 'bị lặp lại ({name}): tên tiêu đề không phân biệt chữ hoa chữ thường',
  'webhook.header.value_invalid':
    'phải là văn bản in được trên một dòng (không xuống dòng, không ký tự điều khiển)',
  'webhook.header.value_too_long': 'dài hơn {limit} ký tự',
  'webhook.event_type_unknown': 'phải là một trong các loại sự kiện: {values}',
  'webhook.event.iot.alert.raised':
    'Một số đo của cảm biến vượt ngưỡng của quy tắc (đủ lâu như quy tắc yêu cầu): một cảnh báo được tạo.',
  'webhook.event.iot.alert.resolved':
    'Một số đo đã trở lại qua ngưỡng hết cảnh báo của quy tắc: cảnh báo đang mở được đóng lại.',
  'webhook.event.iot.device.offline':
    'Một thiết bị không gửi số đo hay tín hiệu nào lâu hơn thời gian chờ tín hiệu của nó.',
  'webhook.event.iot.device.online':
    'Một thiết bị đang mất kết nối đã gửi lại (một số đo hoặc một tín hiệu).',
  'webhook.event.harvest.batch.created': 'Một lô thu hoạch đã được khai báo và được chủ trang trại xác nhận.',
  'webhook.event.webhook.endpoint.paused':
    'Một điểm nhận webhook khác của trang trại đã bị tạm dừng (do chủ trang trại, do gửi thất bại nhiều lần, hoặc do nơi nhận trả lời 410 Gone); các sự kiện của nó chờ đến khi được bật lại.',
  'webhook.event.webhook.test':
    'Một tin nhắn thử, gửi theo yêu cầu; không bao giờ được tính vào việc tạm dừng.',
  // Notifications
  'notifications.unknown_user': 'không phải người dùng của trang trại này: {id}',
  // Resources
  'users.self_change': 'Bạn không thể xóa tài khoản của chính mình hoặc bỏ quyền chủ trang trại của mình',
  'account.password_changed': 'Mật khẩu của bạn đã được thay đổi',
  'diary.staff_own_tasks':
    'Nhân viên chỉ có thể đánh dấu hoàn thành và sửa mô tả, thời gian kết thúc của công việc được giao cho mình',
  'places.farm_in_use':
    'Trang trại này vẫn còn lô ({blocks}), khu vực ({zones}) và thửa đất ({parcels}): hãy chuyển chúng sang trang trại khác hoặc xóa chúng trước',
  'places.block_in_use':
    'Lô này vẫn còn thửa đất ({parcels}): hãy chuyển chúng sang lô khác hoặc xóa chúng trước',
  'places.zone_in_use':
    'Khu vực này vẫn còn thửa đất ({parcels}): hãy chuyển chúng sang khu vực khác hoặc xóa chúng trước',
};

const catalogues: Record<Language, Record<MessageKey, string>> = { en, vi };

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

/** Translate a catalogue key; a string that is not a key is returned as it is. */
export function translate(
  key: string,
  language: Language,
  params: Record<string, string | number> = {},
): string {
  const template = isMessageKey(key) ? catalogues[language][key] : key;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

export function parseLanguage(value: unknown): Language | undefined {
  if (typeof value !== 'string') return undefined;
  const base = value.trim().toLowerCase().slice(0, 2);
  return (LANGUAGES as readonly string[]).includes(base) ? (base as Language) : undefined;
}

/** The supported language an Accept-Language header prefers most, if any. */
export function languageFromAcceptLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
      return { tag: tag ?? '', q: q ? Number(q[1]) : 1, index };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    const language = parseLanguage(tag);
    if (language) return language;
  }
  return undefined;
}
