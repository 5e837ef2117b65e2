// LoRaWAN network servers post here: ChirpStack's HTTP integration and The Things Stack's webhooks,
// with an API key like every API client. Events of devices no one has yet are listed under
// /api/iot/unclaimed-devices, where a user adopts (or dismisses) them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { AppError, validationFailed } from '../../platform/errors.js';
import { errorAnswers } from '../../platform/resource/answers.js';
import { PAGING_DESCRIPTION } from '../../platform/resource/paging.js';
import { type ResourceDeps, type ResourceRoute, requestContext } from '../../platform/resource/request.js';
import { resourceRoutes } from '../../platform/resource/routes.js';
import { Device } from './device.schemas.js';
import {
  CHIRPSTACK_EVENTS,
  isChirpstackEvent,
  parseChirpstackEvent,
  parseTtsMessage,
  ttsMessageKind,
  type UplinkMessage,
} from './lorawan.js';
import {
  AdoptBody,
  ChirpstackEvent,
  ChirpstackQuery,
  DevEuiParam,
  IngestStored,
  IngestUnclaimed,
  TtsMessage,
  UnclaimedDevice,
} from './lorawan.schemas.js';
import {
  adoptUnclaimedDevice,
  dismissUnclaimedDevice,
  ingestUplink,
  listUnclaimedDeviceAnswers,
} from './lorawan.service.js';

const tag = 'iot';
const UNCLAIMED_PATH = '/api/iot/unclaimed-devices';
/** The content types ChirpStack's Protobuf marshaler (and protobuf clients) send. */
const PROTOBUF_TYPES = ['application/octet-stream', 'application/x-protobuf', 'application/protobuf'];

const AUTH_NOTE =
  'Authenticate as every API client: an API key (owner-made, role staff is enough) in the header ' +
  '`Authorization: Bearer fk_…`, which the integration sends as a custom header. ';
const ANSWER_NOTE =
  'HTTP 200 {data: {event, device_id, readings, duplicate}} for a device of the farm (its DevEUI): ' +
  'readings stored, and the event is a heartbeat of the device; an event stored before answers ' +
  'duplicate: true and stores nothing. HTTP 202 {data: {event, unclaimed: true, dev_eui}} when no ' +
  'device has the DevEUI: it is listed under /api/iot/unclaimed-devices for adoption. Every numeric ' +
  'value of the decoded payload is a reading, its metric the path of keys joined with "." in lower ' +
  'case (other characters than a-z, 0-9, "_" and "." become "_", cut to 64); true and false are 1 ' +
  'and 0; strings are skipped. Alerts and webhooks follow through the outbox: the answer never ' +
  'waits for them.';

export async function lorawanRoutes(app: FastifyInstance, { deps }: { deps: ResourceDeps }): Promise<void> {
  await app.register(ingestRoutes, { deps });
  await app.register(unclaimedDeviceRoutes, { deps });
}

/** The two routes network servers post to (a plugin of their own: the Protobuf refusal is theirs). */
async function ingestRoutes(app: FastifyInstance, { deps }: { deps: ResourceDeps }): Promise<void> {
  // A Protobuf body is refused with what to change, before it is read any further than its bytes.
  app.addContentTypeParser(PROTOBUF_TYPES, { parseAs: 'buffer' }, (request, _body, done) => {
    const type = String(request.headers['content-type'] ?? '').slice(0, 100);
    done(new AppError('iot.protobuf_body', 415, { type }), undefined);
  });

  const answer = (reply: FastifyReply, event: string, message: UplinkMessage, outcome: IngestOutcomeOf) => {
    if (outcome.status === 'unclaimed') {
      reply.code(202);
      return { data: { event, unclaimed: true, dev_eui: message.devEui } };
    }
    return {
      data: {
        event,
        device_id: outcome.device_id,
        readings: outcome.readings,
        duplicate: outcome.status === 'duplicate',
      },
    };
  };
  const ingestSchema = (operationId: string, summary: string, description: string, body: unknown) => ({
    tags: [tag],
    operationId,
    summary,
    description,
    body,
    response: { 200: IngestStored, 202: IngestUnclaimed, ...errorAnswers(400, 401, 415, 422) },
  });

  app.post(
    '/api/iot/ingest/chirpstack',
    {
      schema: {
        ...ingestSchema(
          'ingestChirpstackEvent',
          'Receive a ChirpStack event (HTTP integration, JSON)',
          'Set this URL as the event endpoint of a ChirpStack application’s HTTP integration, with ' +
            'the JSON payload encoding (a Protobuf body is a 415). ' +
            AUTH_NOTE +
            'ChirpStack v4 and v3 events both read (v3: devEUI in base64, objectJSON). The device is ' +
            'deviceInfo.devEui; up: the readings of object, taken at time; status: batteryLevel as ' +
            'battery_level. Every event is a heartbeat. Duplicates are told by deduplicationId, or by ' +
            'the whole body for events without one. An unknown or missing event parameter is a 400. ' +
            ANSWER_NOTE,
          ChirpstackEvent,
        ),
        querystring: ChirpstackQuery,
      },
    },
    async (request: FastifyRequest, reply) => {
      const { event } = request.query as Static<typeof ChirpstackQuery>;
      if (!isChirpstackEvent(event)) {
        throw new AppError('iot.chirpstack_event_unknown', 400, { events: CHIRPSTACK_EVENTS.join(', ') });
      }
      const ctx = requestContext(request, deps);
      const message = parseChirpstackEvent(event, request.body, ctx.clock.now());
      if (Array.isArray(message)) throw validationFailed(message);
      return answer(reply, event, message, await ingestUplink(ctx, ctx.scope, message));
    },
  );

  const ttsSchema = ingestSchema(
    'ingestTtsMessage',
    'Receive a message of The Things Stack (webhook integration)',
    'Set this URL as the base URL of a webhook of The Things Stack v3 (format JSON) with uplink ' +
      'messages enabled, and the other message kinds if wanted. ' +
      AUTH_NOTE +
      'The device is end_device_ids.dev_eui; uplink_message: the readings of decoded_payload, taken ' +
      'at uplink_message.received_at (else received_at); other kinds (join_accept, downlink_*, ' +
      'location_solved, service_data) are a heartbeat only. Duplicates are told by the as:up: ' +
      'correlation id. A path of its own per message kind (`/uplink`, `/join` …, as the ' +
      'console offers) may follow the base URL: the message itself tells its kind. ' +
      ANSWER_NOTE,
    TtsMessage,
  );
  const ttsHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = requestContext(request, deps);
    const message = parseTtsMessage(request.body, ctx.clock.now());
    if (Array.isArray(message)) throw validationFailed(message);
    const event = ttsMessageKind(request.body);
    return answer(reply, event, message, await ingestUplink(ctx, ctx.scope, message));
  };
  app.post('/api/iot/ingest/tts', { schema: ttsSchema }, ttsHandler);
  // The console's per-kind paths (`/uplink` …) under the base URL: the same route, not documented twice.
  app.post('/api/iot/ingest/tts/:kind', { schema: { ...ttsSchema, hide: true } }, ttsHandler);
}

type IngestOutcomeOf = Awaited<ReturnType<typeof ingestUplink>>;

const UnclaimedParams = Type.Object({ id: DevEuiParam });

/** POST …/{dev_eui}/adopt; the body may be left out (every field has a default). */
const adoptRoute: ResourceRoute = (app, deps) => {
  app.post(
    `${UNCLAIMED_PATH}/:id/adopt`,
    {
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: [tag],
        operationId: 'adoptUnclaimedDevice',
        summary: 'Adopt an unclaimed LoRaWAN device: a device with its DevEUI',
        description:
          'Creates the device with this DevEUI (code: the DevEUI unless given; name: the network ' +
          'server’s name, else the DevEUI) and removes it from the unclaimed list: its next event is ' +
          'stored. HTTP 201 with the device as an array of one; 404 when it is not listed; 409 ' +
          '(dev_eui_taken) when a live device has this DevEUI; 422 for a taken code.',
        params: UnclaimedParams,
        body: AdoptBody,
        response: { 201: Type.Array(Device, { maxItems: 1 }), ...errorAnswers(401, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof UnclaimedParams>;
      const device = await adoptUnclaimedDevice(
        requestContext(request, deps),
        id,
        request.body as Static<typeof AdoptBody>,
      );
      reply.code(201).header('location', `/api/iot/devices/${device.id}`);
      return [device];
    },
  );
};

const unclaimedDeviceRoutes = resourceRoutes({
  tag,
  noun: 'unclaimed LoRaWAN device',
  name: 'UnclaimedDevice',
  path: UNCLAIMED_PATH,
  idDescription: 'The DevEUI',
  docs: {
    list: {
      summary: 'LoRaWAN devices heard from that no device of the farm has, last heard first',
      description:
        'Each with its network-server name, first and last time heard from, how many events, and ' +
        `the last decoded payload (JSON text cut to 4 KB). ${PAGING_DESCRIPTION}`,
    },
    remove: {
      summary: 'Dismiss an unclaimed LoRaWAN device',
      description: 'It leaves the list; it is listed again when it is heard from again.',
    },
  },
  schemas: { id: DevEuiParam, item: UnclaimedDevice },
  service: {
    list: listUnclaimedDeviceAnswers,
    remove: (ctx, devEui) => dismissUnclaimedDevice(ctx, devEui),
  },
  routes: [adoptRoute],
});
