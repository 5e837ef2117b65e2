// What /openapi.json says beyond the routes' own schemas: the tags' descriptions, examples of the
// main operations (by operationId) and the webhooks Furrow sends. The transform in
// platform/http/openapi.ts puts them in place.
import { version } from './cli/version.js';
import { webhookDocuments } from './modules/webhooks/webhook.openapi.js';
import type { ApiDocumentExtras } from './platform/http/openapi.js';

const TAGS: Record<string, string> = {
  health: 'Liveness and readiness of the process, for load balancers and orchestrators (no token).',
  auth: 'Login for an access token, logout, the current user, login alerts and API keys (`fk_…`).',
  account: 'The signed-in user: their own name, language, e-mail and password.',
  users: 'People of the tenant, with their role (owners only manage them).',
  webhooks:
    'Receiving URLs for signed event messages (owners only). The messages themselves are in the `webhooks` ' +
    'section of this document.',
  crops: 'Crops and livestock items, with their crop type and product category.',
  'crop types': 'Kinds of crop (tomato, rice), shared by crops, seasons and harvest batches.',
  'product categories': 'The product category tree of crops and livestock items.',
  diary: 'Production-diary tasks and their categories (stages) and sub-categories.',
  seasons: 'Crop seasons: one crop on a farm or block from a start to an end date.',
  'season templates': 'Reusable season plans: the tasks a new season starts with.',
  'farms and places': 'Farms and their blocks, zones and parcels.',
  iot: 'Devices, sensor readings, heartbeats, threshold rules and the alerts they raise.',
  harvest: 'Harvest batches, declared then confirmed, and harvest totals.',
  today: 'What needs attention today, in one call.',
  notifications:
    'Who is e-mailed of alerts and offline devices (owners only); e-mail needs SMTP_URL on the server.',
};

const CROP = {
  id: 12,
  name: 'Tomato, Roma',
  description: 'Greenhouse 2',
  location: null,
  crop_type: 3,
  category_id: 1,
  sku: 'TOM-ROMA',
  code: 'T-01',
  price: 18000,
  status: true,
  images: '["/uploads/tomato.jpg"]',
  full_description: '<p>Determinate, for sauce.</p>',
};

/** The list form of the same crop: its first image instead of the array and the long text. */
const { images: _images, full_description: _full, ...CROP_FIELDS } = CROP;
const CROP_LIST_ITEM = { ...CROP_FIELDS, image: '/uploads/tomato.jpg' };

const EXAMPLES: ApiDocumentExtras['examples'] = {
  loginUser: {
    request: {
      login: {
        summary: 'A user of the demo tenant',
        value: { tenantcode: 'demo', username: 'owner', password: 'correct horse battery staple' },
      },
    },
    answer: {
      status: '200',
      examples: {
        success: {
          summary: 'The token, its expiry, the user and the tenant',
          value: {
            meta: { status_code: 0, message: 'Logged in successfully' },
            data: {
              token: '3f9c2b8e7d6a5f4e3d2c1b0a9f8e7d6c',
              access_token: '3f9c2b8e7d6a5f4e3d2c1b0a9f8e7d6c',
              token_type: 'Bearer',
              expires_in: 36000,
              expires_at: '2026-05-04T16:30:00.000Z',
              user: {
                id: 1,
                username: 'owner',
                name: 'Lan Nguyen',
                firstname: 'Lan',
                lastname: 'Nguyen',
                picture: null,
                role: 'owner',
                email: 'lan@example.org',
                tel: '',
                roles: [{ slug: 'owner', name: 'Owner' }],
                permissions: [{ slug: 'records.read' }, { slug: 'records.write' }],
                isAdmin: true,
                sys_message: '',
              },
              tenant: { code: 'demo', name: 'Demo farm' },
            },
          },
        },
        wrongCredentials: {
          summary: 'Wrong tenant, user or password: HTTP 200 with meta.status_code 1',
          value: { meta: { status_code: 1, message: 'The account or password is incorrect' } },
        },
      },
    },
  },
  listCrops: {
    answer: { status: '200', examples: { page: { summary: 'A page of one crop', value: [CROP_LIST_ITEM] } } },
  },
  createCrop: {
    request: {
      crop: {
        summary: 'A crop with its type and category',
        value: { name: 'Tomato, Roma', crop_type: 3, category_id: 1, sku: 'TOM-ROMA', price: 18000 },
      },
    },
    answer: {
      status: '201',
      examples: { created: { summary: 'The record, as an array of one', value: [CROP] } },
    },
  },
  updateCrop: {
    request: { price: { summary: 'Change only the price', value: { price: 19500 } } },
  },
  createSeason: {
    request: {
      season: {
        summary: 'A season of a crop on a farm',
        value: {
          name: 'Tomato spring 2026',
          crop_id: 12,
          farm_id: 1,
          start_date: '2026-03-01',
          end_date: '2026-06-30',
          season_template_id: 2,
        },
      },
    },
  },
  createTask: {
    request: {
      task: {
        summary: 'A task of a season, assigned to a staff member',
        value: {
          name: 'Irrigate block A',
          season_id: 5,
          category_task_id: 2,
          assigned_to: 4,
          start: '2026-05-04 06:00:00',
          end: '2026-05-04 08:00:00',
        },
      },
    },
  },
  ingestReadings: {
    request: {
      readings: {
        summary: 'Two readings of one device',
        value: {
          readings: [
            {
              device_code: 'soil-07',
              metric: 'soil_moisture',
              value: 11.5,
              recorded_at: '2026-05-04T06:30:00Z',
            },
            { device_code: 'soil-07', metric: 'soil_temperature', value: 21.2 },
          ],
        },
      },
    },
    answer: {
      status: '200',
      examples: {
        accepted: {
          summary: 'Both stored; the first raised an alert, the second resolved an older one',
          value: {
            data: {
              accepted: 2,
              rejected: 0,
              results: [
                { index: 0, status: 'accepted', reading_id: 901, alert_ids: [41], resolved_alert_ids: [] },
                { index: 1, status: 'accepted', reading_id: 902, alert_ids: [], resolved_alert_ids: [38] },
              ],
            },
          },
        },
      },
    },
  },
  sendWebhookTest: {
    request: {
      ofKind: {
        summary: "The catalogue's iot.alert.raised example, marked test: true",
        value: { event_type: 'iot.alert.raised' },
      },
      plain: { summary: 'A webhook.test message (as with no body)', value: {} },
    },
  },
  createWebhookEndpoint: {
    request: {
      endpoint: {
        summary: 'Alerts and harvests to one receiver',
        value: {
          url: 'https://hooks.example.org/furrow',
          events: ['iot.alert.raised', 'harvest.batch.created'],
          description: 'Farm dashboard',
        },
      },
    },
  },
};

/** The extras of the document of this Furrow. */
export function apiDocumentExtras(): ApiDocumentExtras {
  return { version: version(), tags: TAGS, examples: EXAMPLES, webhooks: webhookDocuments() };
}
