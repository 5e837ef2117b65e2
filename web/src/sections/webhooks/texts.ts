// The Webhooks section's own words for its second-stage parts, in English and Vietnamese (the
// first-stage words are in the app's catalogue, app/i18n.ts). Two groups: the owner's controls
// (pause, recover, rotation, headers, filters, tests of any kind) and the insight parts (log
// filters, stats, the event catalogue).
import { defineTexts } from '../../app/texts';

const controlsEn = {
  'controls.event_paused': 'Sending to another of your addresses is paused',

  'controls.pause': 'Pause sending',
  'controls.pause_title': 'Pause sending to this address?',
  'controls.pause_body':
    'Furrow stops sending events to {url} until you re-enable it. Nothing is lost: new events are kept and sent, oldest first, when you re-enable sending.',
  'controls.paused': 'Sending paused. New events are kept and will be sent when you re-enable it.',

  'controls.recover': 'Send failed deliveries again',
  'controls.recover_intro':
    'Every delivery to this address that failed in this period is sent again, with the same content.',
  'controls.recover_since': 'Failed from',
  'controls.recover_until': 'Until (optional)',
  'controls.recover_until_hint': 'Leave empty to include everything up to now.',
  'controls.recover_confirm': 'Send again',
  'controls.recover_sending': 'Sending…',
  'controls.recovered_one': '{n} failed delivery will be sent again. Its result appears in the delivery log.',
  'controls.recovered_other':
    '{n} failed deliveries will be sent again. Their results appear in the delivery log.',
  'controls.recovered_none': 'No delivery failed in that period: there is nothing to send again.',
  'controls.recover_order': 'The start must be before the end.',
  'controls.recover_time': 'Enter a date and time.',
  'controls.recover_too_many':
    '{count} deliveries failed in that period; at most {limit} can be sent again at once. Choose a shorter period.',

  'controls.rotate_body': 'Furrow creates a new secret and shows it once. Give it to your receiver.',
  'controls.overlap_legend': 'How long should the current secret keep working?',
  'controls.overlap_hint':
    'Until then every message is signed with both secrets, so your receiver accepts it with either while you update it.',
  'controls.overlap_0': 'Stop it at once',
  'controls.overlap_3600': '1 hour',
  'controls.overlap_86400': '24 hours',
  'controls.overlap_604800': '7 days',
  'controls.rotated_overlap': 'Secret rotated. The previous secret keeps working until {time}.',
  'controls.previous_until': 'The previous secret keeps working until {time}.',

  'controls.test_kind': 'Message to send as a test',
  'controls.test_sent_kind': 'Test message “{kind}” sent. Its result appears in the delivery log.',

  'controls.headers_legend': 'Headers sent with every message (optional)',
  'controls.headers_hint':
    'For example a key your receiving system asks for. Up to 10. Furrow’s own headers, Host and Content-… cannot be set.',
  'controls.header_row': 'Header {n}',
  'controls.header_name': 'Name',
  'controls.header_value': 'Value',
  'controls.header_add': 'Add a header',
  'controls.header_remove': 'Remove',
  'controls.header_remove_label': 'Remove header {n}',
  'controls.header_name_required': 'Give this header a name, or remove it.',
  'controls.headers_full': 'This is the most headers an address can have.',
  'controls.header_reserved_http':
    '{name} cannot be set here: the connection sets it itself. Use another name.',
  'controls.header_reserved_own': '{name} cannot be set here: Furrow sets it on every message itself.',
  'controls.header_duplicate': 'This name is used twice (capital letters make no difference).',
  'controls.headers_title': 'Headers sent',

  'controls.filters_legend': 'Which alerts to send',
  'controls.severity_legend': '{event}: only these severities',
  'controls.severity_hint': 'Untick a severity to stop sending those alerts to this address.',
  'controls.severity.critical': 'Critical',
  'controls.severity.warning': 'Warning',
  'controls.severity.info': 'Info',
  'controls.severity_required': 'Choose at least one severity, or stop sending this event above.',
  'controls.filters_other':
    'This address has other filters set through the API. They are kept as they are when you save.',
  'controls.filters_title': 'Filters',
  'controls.only_severities': 'only {list}',
};

const controlsVi: Record<keyof typeof controlsEn, string> = {
  'controls.event_paused': 'Việc gửi tới một địa chỉ khác của bạn bị tạm dừng',

  'controls.pause': 'Tạm dừng gửi',
  'controls.pause_title': 'Tạm dừng gửi tới địa chỉ này?',
  'controls.pause_body':
    'Furrow ngừng gửi sự kiện tới {url} cho tới khi bạn bật lại. Không mất gì: các sự kiện mới được giữ lại và sẽ được gửi, cũ trước, khi bạn bật lại.',
  'controls.paused': 'Đã tạm dừng gửi. Các sự kiện mới được giữ lại và sẽ được gửi khi bạn bật lại.',

  'controls.recover': 'Gửi lại các lần gửi thất bại',
  'controls.recover_intro':
    'Mọi lần gửi tới địa chỉ này bị thất bại trong khoảng thời gian này sẽ được gửi lại, với cùng nội dung.',
  'controls.recover_since': 'Thất bại từ',
  'controls.recover_until': 'Đến (không bắt buộc)',
  'controls.recover_until_hint': 'Để trống để tính đến bây giờ.',
  'controls.recover_confirm': 'Gửi lại',
  'controls.recover_sending': 'Đang gửi…',
  'controls.recovered_one': '{n} lần gửi thất bại sẽ được gửi lại. Kết quả hiện trong nhật ký gửi.',
  'controls.recovered_other': '{n} lần gửi thất bại sẽ được gửi lại. Kết quả hiện trong nhật ký gửi.',
  'controls.recovered_none':
    'Không có lần gửi nào thất bại trong khoảng thời gian đó: không có gì để gửi lại.',
  'controls.recover_order': 'Thời điểm bắt đầu phải trước thời điểm kết thúc.',
  'controls.recover_time': 'Nhập ngày và giờ.',
  'controls.recover_too_many':
    '{count} lần gửi thất bại trong khoảng thời gian đó; mỗi lần chỉ gửi lại được tối đa {limit}. Hãy chọn khoảng ngắn hơn.',

  'controls.rotate_body': 'Furrow tạo khóa bí mật mới và chỉ hiện nó một lần. Hãy đưa nó cho hệ thống nhận.',
  'controls.overlap_legend': 'Khóa hiện tại còn dùng được trong bao lâu?',
  'controls.overlap_hint':
    'Trong thời gian đó mỗi tin nhắn được ký bằng cả hai khóa, nên hệ thống nhận chấp nhận tin nhắn với khóa nào cũng được trong lúc bạn cập nhật.',
  'controls.overlap_0': 'Ngừng ngay',
  'controls.overlap_3600': '1 giờ',
  'controls.overlap_86400': '24 giờ',
  'controls.overlap_604800': '7 ngày',
  'controls.rotated_overlap': 'Đã đổi khóa bí mật. Khóa trước vẫn dùng được đến {time}.',
  'controls.previous_until': 'Khóa bí mật trước vẫn dùng được đến {time}.',

  'controls.test_kind': 'Tin nhắn để gửi thử',
  'controls.test_sent_kind': 'Đã gửi tin nhắn thử “{kind}”. Kết quả hiện trong nhật ký gửi.',

  'controls.headers_legend': 'Tiêu đề gửi kèm mỗi tin nhắn (không bắt buộc)',
  'controls.headers_hint':
    'Ví dụ một mã khóa mà hệ thống nhận yêu cầu. Tối đa 10. Không đặt được các tiêu đề riêng của Furrow, Host và Content-….',
  'controls.header_row': 'Tiêu đề {n}',
  'controls.header_name': 'Tên',
  'controls.header_value': 'Giá trị',
  'controls.header_add': 'Thêm tiêu đề',
  'controls.header_remove': 'Xóa',
  'controls.header_remove_label': 'Xóa tiêu đề {n}',
  'controls.header_name_required': 'Hãy đặt tên cho tiêu đề này, hoặc xóa nó.',
  'controls.headers_full': 'Một địa chỉ có tối đa chừng này tiêu đề.',
  'controls.header_reserved_http':
    'Không đặt được {name} ở đây: kết nối tự đặt tiêu đề này. Hãy dùng tên khác.',
  'controls.header_reserved_own': 'Không đặt được {name} ở đây: Furrow tự đặt nó trên mỗi tin nhắn.',
  'controls.header_duplicate': 'Tên này bị dùng hai lần (chữ hoa hay chữ thường đều như nhau).',
  'controls.headers_title': 'Tiêu đề gửi kèm',

  'controls.filters_legend': 'Cảnh báo nào được gửi',
  'controls.severity_legend': '{event}: chỉ các mức độ này',
  'controls.severity_hint': 'Bỏ chọn một mức độ để không gửi các cảnh báo đó tới địa chỉ này nữa.',
  'controls.severity.critical': 'Nghiêm trọng',
  'controls.severity.warning': 'Cần chú ý',
  'controls.severity.info': 'Thông tin',
  'controls.severity_required': 'Chọn ít nhất một mức độ, hoặc bỏ chọn sự kiện này ở trên.',
  'controls.filters_other': 'Địa chỉ này có bộ lọc khác được đặt qua API. Chúng được giữ nguyên khi bạn lưu.',
  'controls.filters_title': 'Bộ lọc',
  'controls.only_severities': 'chỉ {list}',
};

const insightEn = {
  'insight.filter.title': 'Show only',
  'insight.filter.status': 'Result',
  'insight.filter.any_status': 'Any result',
  'insight.filter.event': 'Event',
  'insight.filter.any_event': 'Any event',
  'insight.filter.since': 'From (day)',
  'insight.filter.until': 'To (day)',
  'insight.filter.clear': 'Clear choices',
  'insight.filter.none_match': 'No deliveries match these choices.',
  'insight.filter.match_one': '{n} delivery matches these choices.',
  'insight.filter.match_other': '{n} deliveries match these choices.',
  'insight.filter.all_shown': 'Showing every delivery.',

  'insight.stats.title': 'How deliveries went',
  'insight.stats.period': 'Period',
  'insight.stats.24h': 'Last 24 hours',
  'insight.stats.7d': 'Last 7 days',
  'insight.stats.showing_24h': 'Showing the last 24 hours.',
  'insight.stats.showing_7d': 'Showing the last 7 days.',
  'insight.stats.loading': 'Counting deliveries…',
  'insight.stats.delivered': 'Delivered',
  'insight.stats.failed': 'Failed every attempt',
  'insight.stats.waiting': 'Waiting or retrying now',
  'insight.stats.held': 'Held while paused',
  'insight.stats.rate': 'Success rate',
  'insight.stats.rate_of': 'of finished deliveries were delivered',
  'insight.stats.rate_none': 'None finished in this period',
  'insight.stats.typical': 'Usual answer time',
  'insight.stats.slow': 'Slowest answers',
  'insight.stats.slow_hint': '1 in 20 answers took this long or longer',
  'insight.stats.no_answers': 'No answers in this period',
  'insight.stats.last_success': 'Last delivered',
  'insight.stats.last_failure': 'Last failed',
  'insight.stats.never': 'None yet',
  'insight.stats.ms': '{n} ms',
  'insight.stats.seconds': '{n} s',
  'insight.stats.note': 'Counted hour by hour, from {from}.',

  'insight.list.col': 'Last 24 hours',
  'insight.list.rate': '{rate}% delivered in the last 24 hours',
  'insight.list.counts': '{delivered} delivered, {failed} failed',
  'insight.list.none': 'No deliveries in the last 24 hours',
  'insight.list.events_link': 'Event kinds and example messages',

  'insight.events.title': 'Event kinds',
  'insight.events.intro':
    'Each kind of event Furrow can send to your receiving addresses, with an example of the message your system receives.',
  'insight.events.loading': 'Loading event kinds…',
  'insight.events.group': 'Group',
  'insight.events.group.iot': 'Sensors and devices',
  'insight.events.group.harvest': 'Harvests',
  'insight.events.group.webhooks': 'Sending to your addresses',
  'insight.events.example': 'Example message',
  'insight.events.example_label': 'Example message of {type}',
  'insight.events.schema': 'Every field of the message',
  'insight.events.schema_label': 'Fields of {type}',
};

const insightVi: Record<keyof typeof insightEn, string> = {
  'insight.filter.title': 'Chỉ hiện',
  'insight.filter.status': 'Kết quả',
  'insight.filter.any_status': 'Mọi kết quả',
  'insight.filter.event': 'Sự kiện',
  'insight.filter.any_event': 'Mọi sự kiện',
  'insight.filter.since': 'Từ ngày',
  'insight.filter.until': 'Đến ngày',
  'insight.filter.clear': 'Bỏ các lựa chọn',
  'insight.filter.none_match': 'Không có lần gửi nào khớp với các lựa chọn này.',
  'insight.filter.match_one': '{n} lần gửi khớp với các lựa chọn này.',
  'insight.filter.match_other': '{n} lần gửi khớp với các lựa chọn này.',
  'insight.filter.all_shown': 'Đang hiện mọi lần gửi.',

  'insight.stats.title': 'Tình hình gửi',
  'insight.stats.period': 'Khoảng thời gian',
  'insight.stats.24h': '24 giờ qua',
  'insight.stats.7d': '7 ngày qua',
  'insight.stats.showing_24h': 'Đang hiện 24 giờ qua.',
  'insight.stats.showing_7d': 'Đang hiện 7 ngày qua.',
  'insight.stats.loading': 'Đang đếm các lần gửi…',
  'insight.stats.delivered': 'Đã gửi thành công',
  'insight.stats.failed': 'Thất bại sau mọi lần thử',
  'insight.stats.waiting': 'Đang chờ hoặc đang thử lại',
  'insight.stats.held': 'Đang giữ lại khi tạm dừng',
  'insight.stats.rate': 'Tỉ lệ thành công',
  'insight.stats.rate_of': 'số lần gửi đã xong là thành công',
  'insight.stats.rate_none': 'Chưa có lần gửi nào xong trong khoảng này',
  'insight.stats.typical': 'Thời gian trả lời thường gặp',
  'insight.stats.slow': 'Trả lời chậm nhất',
  'insight.stats.slow_hint': 'Cứ 20 lần thì có 1 lần trả lời lâu bằng hoặc hơn mức này',
  'insight.stats.no_answers': 'Chưa có câu trả lời nào trong khoảng này',
  'insight.stats.last_success': 'Lần thành công gần nhất',
  'insight.stats.last_failure': 'Lần thất bại gần nhất',
  'insight.stats.never': 'Chưa có',
  'insight.stats.ms': '{n} mili giây',
  'insight.stats.seconds': '{n} giây',
  'insight.stats.note': 'Đếm theo từng giờ, từ {from}.',

  'insight.list.col': '24 giờ qua',
  'insight.list.rate': 'Gửi tới nơi {rate}% trong 24 giờ qua',
  'insight.list.counts': '{delivered} lần tới nơi, {failed} lần thất bại',
  'insight.list.none': 'Không có lần gửi nào trong 24 giờ qua',
  'insight.list.events_link': 'Các loại sự kiện và tin nhắn mẫu',

  'insight.events.title': 'Các loại sự kiện',
  'insight.events.intro':
    'Mỗi loại sự kiện mà Furrow có thể gửi tới các địa chỉ nhận của bạn, kèm một tin nhắn mẫu mà hệ thống của bạn sẽ nhận được.',
  'insight.events.loading': 'Đang tải các loại sự kiện…',
  'insight.events.group': 'Nhóm',
  'insight.events.group.iot': 'Cảm biến và thiết bị',
  'insight.events.group.harvest': 'Thu hoạch',
  'insight.events.group.webhooks': 'Việc gửi tới địa chỉ của bạn',
  'insight.events.example': 'Tin nhắn mẫu',
  'insight.events.example_label': 'Tin nhắn mẫu của {type}',
  'insight.events.schema': 'Mọi trường của tin nhắn',
  'insight.events.schema_label': 'Các trường của {type}',
};

export const texts = defineTexts({ ...controlsEn, ...insightEn }, { ...controlsVi, ...insightVi });
