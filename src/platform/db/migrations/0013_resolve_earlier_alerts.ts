// Alerts raised before the alert lifecycle (migration 0012) were all left `active`: nothing could
// resolve them. What the readings have shown since is written down here once:
// - an alert followed by a later alert of the same rule and device went back to normal before that
//   one was raised: resolved at the later one's reading;
// - the newest alert of a rule and device whose state is back on the normal side: resolved at the
//   reading that moved it there.
// The newest alert of a still-breached rule stays active; its rule state learns its id, so the next
// reading on the normal side resolves it.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    update iot_alerts set status = 'resolved', resolved_at = (
      select min(later.recorded_at) from iot_alerts later
      where later.tenant_id = iot_alerts.tenant_id and later.rule_id = iot_alerts.rule_id
        and later.device_id = iot_alerts.device_id and later.id > iot_alerts.id)
    where status = 'active' and exists (
      select 1 from iot_alerts later
      where later.tenant_id = iot_alerts.tenant_id and later.rule_id = iot_alerts.rule_id
        and later.device_id = iot_alerts.device_id and later.id > iot_alerts.id)`.execute(db);
  await sql`
    update iot_alerts set status = 'resolved', resolved_at = (
      select s.last_recorded_at from iot_rule_states s
      where s.tenant_id = iot_alerts.tenant_id and s.rule_id = iot_alerts.rule_id
        and s.device_id = iot_alerts.device_id)
    where status = 'active' and exists (
      select 1 from iot_rule_states s
      where s.tenant_id = iot_alerts.tenant_id and s.rule_id = iot_alerts.rule_id
        and s.device_id = iot_alerts.device_id and s.breached = 0)`.execute(db);
  await sql`
    update iot_rule_states set active_alert_id = (
      select max(a.id) from iot_alerts a
      where a.tenant_id = iot_rule_states.tenant_id and a.rule_id = iot_rule_states.rule_id
        and a.device_id = iot_rule_states.device_id and a.status = 'active')
    where breached = 1 and active_alert_id is null`.execute(db);
}

export async function down(): Promise<void> {
  // Nothing to undo: the alerts' states stay as the readings showed them.
}
