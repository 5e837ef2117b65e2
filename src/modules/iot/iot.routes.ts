// IoT routes: devices and rules are declared with the shared resource pattern; readings,
// heartbeats, alerts and a device's readings are their own small routes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import { parseTimestamp } from '../../platform/dates.js';
import type { Database } from '../../platform/db/types.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import { authOf, scopeOf } from '../../platform/http/auth.js';
import { formatFieldErrors } from '../../platform/http/error-shape.js';
import { ErrorAnswer } from '../../platform/resource/answers.js';
import type { PageQuery } from '../../platform/resource/context.js';
import { Id, TimestampInput } from '../../platform/resource/fields.js';
import { PAGING_DESCRIPTION, PageQueryProperties, setPagingHeaders } from '../../platform/resource/paging.js';
import { resourceRoutes } from '../../platform/resource/routes.js';
import type { OutboxDeps } from '../webhooks/outbox.js';
import { findDevice, listAlerts, listDevices, listReadings, listRules } from './iot.repository.js';
import {
  Alert,
  Device,
  DeviceCreate,
  DeviceUpdate,
  HeartbeatBody,
  Reading,
  ReadingsAnswer,
  ReadingsBody,
  Rule,
  RuleCreate,
  RuleUpdate,
} from './iot.schemas.js';
import {
  changeDevice,
  changeRule,
  createDevice,
  createRule,
  devicesWithParcels,
  getDevice,
  getRule,
  heartbeat,
  ingestReadings,
  removeDevice,
  removeRule,
  toRuleAnswer,
} from './iot.service.js';

export interface IotRouteDeps extends OutboxDeps {
  db: Kysely<Database>;
  clock: Clock;
}

const offsetOf = (q: PageQuery) => ({ offset: q.page * q.pageLimit, limit: q.pageLimit });

export const deviceRoutes = resourceRoutes({
  tag: 'iot',
  noun: 'IoT device',
  path: '/api/iot/devices',
  description: 'Answers carry status (online/offline) and last_heartbeat.',
  schemas: { item: Device, create: DeviceCreate, update: DeviceUpdate },
  service: {
    async list(ctx, query) {
      const { rows, total, hasNext } = await listDevices(ctx.scope, query);
      return { items: await devicesWithParcels(ctx.scope, rows), total, hasNext };
    },
    get: (ctx, id) => getDevice(ctx.scope, id),
    create: (ctx, input) => createDevice(ctx, ctx.scope, input),
    update: (ctx, id, input) => changeDevice(ctx, ctx.scope, id, input),
    remove: (ctx, id) => removeDevice(ctx, ctx.scope, id),
  },
});

export const ruleRoutes = resourceRoutes({
  tag: 'iot',
  noun: 'threshold rule',
  path: '/api/iot/rules',
  description: 'A rule aims at one device (device_id) or every device of a zone (zone_id).',
  schemas: { item: Rule, create: RuleCreate, update: RuleUpdate },
  service: {
    async list(ctx, query) {
      const { rows, total, hasNext } = await listRules(ctx.scope, query);
      return { items: rows.map(toRuleAnswer), total, hasNext };
    },
    get: (ctx, id) => getRule(ctx.scope, id),
    create: (ctx, input) => createRule(ctx, ctx.scope, input),
    update: (ctx, id, input) => changeRule(ctx, ctx.scope, id, input),
    remove: (ctx, id) => removeRule(ctx, ctx.scope, id),
  },
});

const errors = (...codes: number[]) => Object.fromEntries(codes.map((code) => [code, ErrorAnswer]));

export const iotRoutes: FastifyPluginAsyncTypebox<{ deps: IotRouteDeps }> = async (app, { deps }) => {
  app.post(
    '/api/iot/readings',
    {
      schema: {
        tags: ['iot'],
        summary: 'Send sensor readings',
        description:
          'Up to 1000 readings in one call, stored in one transaction. Each reading is accepted or ' +
          'rejected on its own (unknown device, bad metric, bad value, bad time) and every accepted one is ' +
          'a heartbeat of its device. A reading that crosses a rule’s threshold from the normal side raises ' +
          'an alert and an iot.alert.raised webhook. HTTP 200 when at least one reading is accepted; 422 ' +
          'in the error shape when none is.',
        body: ReadingsBody,
        response: { 200: ReadingsAnswer, ...errors(401, 422) },
      },
    },
    async (request) => {
      const results = await ingestReadings(deps, scopeOf(request, deps.db), request.body.readings);
      const rejected = results.filter((r) => r.status === 'rejected');
      if (rejected.length === results.length) throw validationFailed(rejected.flatMap((r) => r.errors));
      return {
        data: {
          accepted: results.length - rejected.length,
          rejected: rejected.length,
          results: results.map((r) =>
            r.status === 'accepted' ? r : { ...r, errors: formatFieldErrors(r.errors, request.language) },
          ),
        },
      };
    },
  );

  app.post(
    '/api/iot/heartbeats',
    {
      schema: {
        tags: ['iot'],
        summary: 'Tell Furrow a device is alive',
        description: 'Brings an offline device back online. Answers the device as an array of one.',
        body: HeartbeatBody,
        response: { 200: Type.Array(Device, { maxItems: 1 }), ...errors(401, 422) },
      },
    },
    async (request) => [await heartbeat(deps, scopeOf(request, deps.db), request.body.device_code)],
  );

  const AlertQuery = Type.Object(
    { ...PageQueryProperties, device_id: Type.Optional(Id('Only alerts of this device')) },
    { additionalProperties: true },
  );
  app.get(
    '/api/iot/alerts',
    {
      schema: {
        tags: ['iot'],
        summary: 'Alerts raised, newest first',
        description: `A plain JSON array. ${PAGING_DESCRIPTION}`,
        querystring: AlertQuery,
        response: { 200: Type.Array(Alert), ...errors(401, 422) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const { rows, ...paging } = await listAlerts(
        scopeOf(request, deps.db),
        { deviceId: query.device_id },
        query,
      );
      setPagingHeaders(request, reply, query, paging);
      return rows.map((row) => ({
        id: row.id,
        rule_id: row.rule_id,
        device_id: row.device_id,
        device_code: row.device_code,
        zone_id: row.zone_id,
        metric: row.metric,
        value: row.value,
        threshold: row.threshold,
        operator: row.operator,
        severity: row.severity,
        message: row.message,
        recorded_at: new Date(row.recorded_at).toISOString(),
        created_at: new Date(row.created_at).toISOString(),
      }));
    },
  );

  const ReadingQuery = Type.Object(
    {
      ...PageQueryProperties,
      metric: Type.Optional(Type.String({ maxLength: 64 })),
      from: Type.Optional(TimestampInput('Readings taken at or after')),
      to: Type.Optional(TimestampInput('Readings taken at or before')),
    },
    { additionalProperties: true },
  );
  app.get(
    '/api/iot/devices/:id/readings',
    {
      schema: {
        tags: ['iot'],
        summary: 'A device’s stored readings, newest first',
        description:
          'Filter with metric, from and to (YYYY-MM-DD HH:MM:SS UTC or ISO 8601). Pages with page and ' +
          'pageLimit; no X-Total-Count (a device may have millions of readings).',
        params: Type.Object({ id: Id('Device id') }),
        querystring: ReadingQuery,
        response: { 200: Type.Array(Reading), ...errors(401, 404, 422) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request, deps.db);
      authOf(request);
      if (!(await findDevice(scope, request.params.id))) throw notFound();
      const query = request.query;
      const bound = (field: 'from' | 'to') => {
        const raw = query[field];
        if (raw === undefined || raw === null) return undefined;
        const ms = parseTimestamp(raw);
        if (ms === undefined) throw validationFailed([{ field, message: 'field.timestamp' }]);
        return ms;
      };
      const rows = await listReadings(
        scope,
        { deviceId: request.params.id, metric: query.metric, from: bound('from'), to: bound('to') },
        offsetOf(query),
      );
      reply.header('cache-control', 'no-store');
      return rows.map((r) => ({
        ...r,
        recorded_at: new Date(r.recorded_at).toISOString(),
        received_at: new Date(r.received_at).toISOString(),
      }));
    },
  );
};
