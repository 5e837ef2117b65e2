// The Webhooks section's own words for its second-stage parts, in English and Vietnamese (the
// first-stage words are in the app's catalogue, app/i18n.ts). Two groups: the owner's controls
// (pause, recover, rotation, headers, filters, tests of any kind) and the insight parts (log
// filters, stats, the event catalogue).
import { defineTexts } from '../../app/texts';

const controlsEn = {
  'controls.placeholder': '',
};

const controlsVi: Record<keyof typeof controlsEn, string> = {
  'controls.placeholder': '',
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
  'insight.stats.never': 'None in this period',
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
  'insight.stats.never': 'Không có trong khoảng này',
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
