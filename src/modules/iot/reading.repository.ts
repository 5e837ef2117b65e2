// Reading statements: a batch in, a device's readings out.
import { insertScoped, type Scope, selectScoped } from '../../platform/db/scope.js';

export interface Page {
  offset: number;
  limit: number;
}

export interface ReadingInsert {
  device_id: number;
  metric: string;
  value: number;
  recorded_at: number;
  received_at: number;
}

/** Inserts readings in chunks that stay under both dialects' parameter limits; answers their ids. */
export async function insertReadings(scope: Scope, readings: readonly ReadingInsert[]): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < readings.length; i += 500) {
    const rows = await insertScoped(scope, 'iot_readings', readings.slice(i, i + 500))
      .returning('id')
      .execute();
    ids.push(...rows.map((r) => Number(r.id)));
  }
  return ids;
}

export interface StoredReading {
  id: number;
  metric: string;
  value: number;
  recorded_at: number;
  received_at: number;
}

/** A device's readings, newest first. */
export async function listReadings(
  scope: Scope,
  filter: {
    deviceId: number;
    metric?: string | undefined;
    from?: number | undefined;
    to?: number | undefined;
  },
  page: Page,
): Promise<StoredReading[]> {
  let query = selectScoped(scope, 'iot_readings')
    .select(['id', 'metric', 'value', 'recorded_at', 'received_at'])
    .where('device_id', '=', filter.deviceId);
  if (filter.metric !== undefined) query = query.where('metric', '=', filter.metric);
  if (filter.from !== undefined) query = query.where('recorded_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('recorded_at', '<=', filter.to);
  const rows = await query
    .orderBy('recorded_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}
