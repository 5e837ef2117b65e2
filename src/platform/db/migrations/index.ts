// Static import map of migrations, in order. A new migration is a new file and a new line here.
import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_resources.js';
import * as m0003 from './0003_webhooks.js';
import * as m0004 from './0004_iot_harvest.js';
import * as m0005 from './0005_list_scaling.js';
import * as m0006 from './0006_delivery_log_index.js';
import * as m0007 from './0007_delivery_queue_indexes.js';
import * as m0008 from './0008_farm_app.js';
import * as m0009 from './0009_reading_rollups.js';
import * as m0010 from './0010_api_keys.js';
import * as m0011 from './0011_idempotency_keys.js';
import * as m0012 from './0012_sensors_and_mail.js';
import * as m0013 from './0013_resolve_earlier_alerts.js';
import * as m0014 from './0014_webhooks_second_stage.js';
import * as m0017 from './0017_test_messages_index.js';
import * as m0018 from './0018_webhook_delivery_hours.js';
import * as m0019 from './0019_search_words.js';
import * as m0021 from './0021_tenant_leading_keys.js';
import * as m0022 from './0022_readings_without_tenant_fk.js';
import * as m0023 from './0023_search_words_postgres.js';
import * as m0024 from './0024_search_index_per_commit.js';
import * as m0025 from './0025_delivery_room_for_leases.js';

export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_resources': m0002,
  '0003_webhooks': m0003,
  '0004_iot_harvest': m0004,
  '0005_list_scaling': m0005,
  '0006_delivery_log_index': m0006,
  '0007_delivery_queue_indexes': m0007,
  '0008_farm_app': m0008,
  '0009_reading_rollups': m0009,
  '0010_api_keys': m0010,
  '0011_idempotency_keys': m0011,
  '0012_sensors_and_mail': m0012,
  '0013_resolve_earlier_alerts': m0013,
  '0014_webhooks_second_stage': m0014,
  '0017_test_messages_index': m0017,
  '0018_webhook_delivery_hours': m0018,
  '0019_search_words': m0019,
  '0021_tenant_leading_keys': m0021,
  '0022_readings_without_tenant_fk': m0022,
  '0023_search_words_postgres': m0023,
  '0024_search_index_per_commit': m0024,
  '0025_delivery_room_for_leases': m0025,
};
