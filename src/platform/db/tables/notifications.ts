// Who is e-mailed of what, and the mail outbox the worker sends from (migration 0012).
import type { Generated } from 'kysely';

export interface NotificationSettingsTable {
  tenant_id: number;
  email_enabled: Generated<number>;
  min_severity: Generated<'info' | 'warning' | 'critical'>;
  /** JSON array of user ids. */
  user_ids: Generated<string>;
  updated_at: number;
}

export type MailStatus = 'pending' | 'sent' | 'failed';

export interface MailOutboxTable {
  id: Generated<number>;
  tenant_id: number;
  /** What it tells of: iot.alert.raised, iot.device.offline, webhook.endpoint.paused … */
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  status: MailStatus;
  attempt_count: Generated<number>;
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

export interface NotificationTables {
  notification_settings: NotificationSettingsTable;
  mail_outbox: MailOutboxTable;
}
