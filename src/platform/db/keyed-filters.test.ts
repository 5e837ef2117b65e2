import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { forEachDialect } from '../../../test/support/databases.js';
import { makeTenant, type TestTenant } from '../../../test/support/factories.js';
import { overlapsRange } from '../../modules/diary/diary.repository.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { columnFilter, isKeyed, keyedFilter } from './keyed-filters.js';
import { migrateToLatest } from './migrate.js';
import { type Filter, insertRecord, listLive, type PageOf, type Row } from './records.js';
import type { Scope } from './scope.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 0, 1);

forEachDialect('keyed filters: a filtered list from statements written once', (database) => {
  let handle: DatabaseHandle;
  let mine: TestTenant;
  let theirs: TestTenant;

  before(async () => {
    handle = openDatabase(database.url, { maxConnections: 4 });
    await migrateToLatest(handle.db);
    mine = await makeTenant(handle.db);
    theirs = await makeTenant(handle.db);
    // Each tenant: a task every 6 hours over 10 days, every third without an end, every fourth done,
    // assigned alternately to its owner and to nobody.
    for (const tenant of [mine, theirs]) {
      const scope = { db: handle.db, tenantId: tenant.id };
      for (let i = 0; i < 40; i++) {
        const start = START + i * 6 * HOUR;
        await insertRecord(
          scope,
          'diary_tasks',
          {
            name: `${tenant.code} task ${i}`,
            start_at: start,
            end_at: i % 3 === 0 ? null : start + (i % 5) * HOUR,
            user_id: tenant.owner.id,
            assigned_to: i % 2 === 0 ? tenant.owner.id : null,
            done_at: i % 4 === 0 ? start : null,
          },
          tenant.owner.id,
        );
      }
    }
  });
  after(() => handle.close());

  /** The same filters as plain closures: listLive builds their statements anew. */
  const unkeyed = (filters: Filter<'diary_tasks'>[]): Filter<'diary_tasks'>[] =>
    filters.map((filter) => {
      const plain: Filter<'diary_tasks'> = (eb) => filter(eb);
      return Object.assign(plain, { sortsMatches: (filter as { sortsMatches?: boolean }).sortsMatches });
    });

  const filtersFor = (scope: Scope, day: number, assignee: number | undefined, done: boolean) => {
    const filters: Filter<'diary_tasks'>[] = overlapsRange(scope, {
      from: START + day * DAY,
      to: START + (day + 2) * DAY - 1,
    });
    if (assignee !== undefined)
      filters.push(columnFilter(scope, 'diary_tasks', 'assigned_to', '=', assignee));
    filters.push(
      keyedFilter(scope, done ? 'done' : 'not done', [], (eb) =>
        eb('diary_tasks.done_at', done ? 'is not' : 'is', null),
      ),
    );
    return filters;
  };

  it('answers what the statements built anew answer, for every tenant, value and page', async () => {
    let compared = 0;
    // The same keys again and again, with other tenants, values and pages: the statements written for
    // the first call must take every later call's values, the tenant's id among them.
    for (const tenant of [mine, theirs, mine]) {
      const scope = { db: handle.db, tenantId: tenant.id };
      for (const day of [0, 3, 7]) {
        for (const assignee of [undefined, tenant.owner.id]) {
          for (const done of [false, true]) {
            const keyed = filtersFor(scope, day, assignee, done);
            assert.ok(keyed.every(isKeyed));
            for (const page of [
              { page: 0, pageLimit: 3 },
              { page: 1, pageLimit: 3 },
              { page: 0, pageLimit: 30 },
            ]) {
              const a: PageOf<Row<'diary_tasks'>> = await listLive(scope, 'diary_tasks', page, keyed);
              const b: PageOf<Row<'diary_tasks'>> = await listLive(
                scope,
                'diary_tasks',
                page,
                unkeyed(keyed),
              );
              assert.deepEqual(a, b);
              for (const row of a.rows) assert.equal(row.tenant_id, tenant.id);
              compared += a.rows.length;
            }
          }
        }
      }
    }
    assert.ok(compared > 100, `only ${compared} rows compared`);
  });

  it('counts the matches when a next page exists, as the statements built anew do', async () => {
    const scope = { db: handle.db, tenantId: theirs.id };
    const filters = [columnFilter(scope, 'diary_tasks', 'user_id', '=', theirs.owner.id)];
    const page = await listLive(scope, 'diary_tasks', { page: 0, pageLimit: 5 }, filters);
    assert.equal(page.total, 40);
    assert.equal(page.hasNext, true);
    assert.deepEqual(page, await listLive(scope, 'diary_tasks', { page: 0, pageLimit: 5 }, unkeyed(filters)));
    // Another tenant's owner: nothing of this tenant is theirs.
    const none = await listLive(scope, 'diary_tasks', { page: 0, pageLimit: 5 }, [
      columnFilter(scope, 'diary_tasks', 'user_id', '=', mine.owner.id),
    ]);
    assert.deepEqual(none, { rows: [], total: 0, hasNext: false });
  });
});
