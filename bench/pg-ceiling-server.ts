// The PostgreSQL ceiling: a minimal Fastify + pg server doing by hand the necessary work of the
// routes bench/api.ts measures, for the same answers. It checks the bearer token (SHA-256 of it,
// looked up with its user and tenant as Furrow's auth does), reads the rows with the tenant
// condition, serializes the same JSON (same fields, same order) with the same ETag, Link and
// X-Total-Count headers, and for writes inserts or updates the row in one statement whose WHERE
// checks the references (live rows of the tenant). A pg.Pool of POOL_SIZE connections (Furrow's API
// pool size); plain parameterized queries (node-postgres's unnamed statements), or named prepared
// statements with PG_NAMED_STATEMENTS=1. bench/api.ts checks every answer once against Furrow's.
import { createHash } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';

// bigint columns (epoch ms, prices, amounts) as numbers, as Furrow reads them.
pg.types.setTypeParser(20, Number);

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
});
pool.on('error', () => {});
const named = process.env.PG_NAMED_STATEMENTS === '1';

type Client = pg.Pool | pg.PoolClient;

async function query<R extends pg.QueryResultRow>(
  client: Client,
  name: string,
  text: string,
  values: unknown[],
): Promise<R[]> {
  const result = await client.query<R>(named ? { name, text, values } : { text, values });
  return result.rows;
}

// --- Answers ----------------------------------------------------------------------------------

const MESSAGES: Record<string, string> = {
  'auth.token_invalid': 'Token has expired or is invalid',
  'http.not_found': 'Not found',
  'http.precondition_failed': 'The record has changed since it was read',
  'validation.failed': 'The given data was invalid',
};

function fail(
  reply: FastifyReply,
  status: number,
  code: string,
  errors?: { field: string; message: string }[],
) {
  const meta = { status_code: status, message: MESSAGES[code] ?? code, code, ...(errors ? { errors } : {}) };
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify([{ meta, data: [] }]));
}

function sendJson(reply: FastifyReply, status: number, json: string) {
  return reply.code(status).type('application/json; charset=utf-8').send(json);
}

/** The strong ETag Furrow sends: the first 27 base64url characters of the record's SHA-256. */
function entityTag(recordJson: string): string {
  return `"${createHash('sha256').update(recordJson).digest('base64url').slice(0, 27)}"`;
}

function tagsOf(header: string): '*' | { weak: boolean; opaque: string }[] {
  if (header.trim() === '*') return '*';
  return [...header.matchAll(/(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g)].map((m) => ({
    weak: m[1] !== undefined,
    opaque: m[2] as string,
  }));
}

const formatTimestamp = (ms: number | null) =>
  ms === null ? null : new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

function jsonArray(text: string | null): unknown[] {
  if (text === null) return [];
  try {
    const parsed = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

// --- The token ---------------------------------------------------------------------------------

interface Caller {
  tenantId: number;
  userId: number;
  role: string;
}

const TOKEN_SQL = `
  select t.tenant_id, u.id as user_id, u.role
  from access_tokens t
  join users u on u.tenant_id = t.tenant_id and u.id = t.user_id
  join tenants n on n.id = t.tenant_id
  where t.token_hash = $1 and t.expires_at > $2 and t.revoked_at is null and u.deleted_at is null`;

/** The caller of a session token (Authorization: Bearer), or undefined after answering 401. */
async function caller(request: FastifyRequest, reply: FastifyReply): Promise<Caller | undefined> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  const token = match?.[1];
  if (token !== undefined && token.length <= 200) {
    const hash = createHash('sha256').update(token).digest('hex');
    const [row] = await query<{ tenant_id: number; user_id: number; role: string }>(
      pool,
      'token',
      TOKEN_SQL,
      [hash, Date.now()],
    );
    if (row) return { tenantId: row.tenant_id, userId: row.user_id, role: row.role };
  }
  fail(reply, 401, 'auth.token_invalid');
  return undefined;
}

function idParam(request: FastifyRequest): number | undefined {
  const id = Number((request.params as { id: string }).id);
  return Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647 ? id : undefined;
}

/** page and pageLimit, or undefined after answering 422. */
function paging(request: FastifyRequest, reply: FastifyReply) {
  const q = request.query as Record<string, string | undefined>;
  const page = q.page === undefined ? 0 : Number(q.page);
  const pageLimit = q.pageLimit === undefined ? 20 : Number(q.pageLimit);
  if (!Number.isInteger(page) || page < 0 || page > 10_000_000) {
    fail(reply, 422, 'validation.failed', [{ field: 'page', message: 'field.invalid' }]);
    return undefined;
  }
  if (!Number.isInteger(pageLimit) || pageLimit < 1 || pageLimit > 1000) {
    fail(reply, 422, 'validation.failed', [{ field: 'pageLimit', message: 'field.invalid' }]);
    return undefined;
  }
  return { page, pageLimit };
}

/** Link (first, prev, next, last) and X-Total-Count, as the spec has them. */
function pagingHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  page: number,
  pageLimit: number,
  total: number | undefined,
  hasNext: boolean,
) {
  const last = total === undefined ? undefined : Math.max(0, Math.ceil(total / pageLimit) - 1);
  const base = request.url.split('?')[0];
  const params = new URLSearchParams(request.url.split('?')[1] ?? '');
  params.delete('token');
  params.set('pageLimit', String(pageLimit));
  const link = (n: number, rel: string) => {
    params.set('page', String(n));
    return `<${base}?${params}>; rel="${rel}"`;
  };
  const links = [link(0, 'first')];
  if (page > 0) links.push(link(last === undefined ? page - 1 : Math.min(page - 1, last), 'prev'));
  if (hasNext) links.push(link(page + 1, 'next'));
  if (last !== undefined) {
    links.push(link(last, 'last'));
    reply.header('x-total-count', String(total));
  }
  reply.header('link', links.join(', '));
}

// --- Crops -------------------------------------------------------------------------------------

interface CropRow {
  id: number;
  name: string;
  description: string;
  crop_type_id: number | null;
  category_id: number | null;
  image: string;
  images: string;
  full_description: string;
  sku: string;
  code: string;
  price: number;
  status: number;
}

const CROP_COLUMNS =
  'id, name, description, crop_type_id, category_id, image, images, full_description, sku, code, price, status';

function cropDetail(row: CropRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    location: null,
    crop_type: row.crop_type_id,
    category_id: row.category_id,
    sku: row.sku,
    code: row.code,
    price: row.price,
    status: row.status === 1,
    images: row.images,
    full_description: row.full_description,
  };
}

function cropListItem(row: CropRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    location: null,
    crop_type: row.crop_type_id,
    category_id: row.category_id,
    sku: row.sku,
    code: row.code,
    price: row.price,
    status: row.status === 1,
    image: row.image,
  };
}

/** The columns a crop request sets, from the fields it sends; refs among them are checked in SQL. */
function cropColumns(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const columns: Record<string, unknown> = {};
  const text = (field: string, column = field) => {
    const v = body[field];
    if (v === undefined) return true;
    if (typeof v !== 'string') return false;
    columns[column] = v;
    return true;
  };
  const ref = (field: string, column: string) => {
    const v = body[field];
    if (v === undefined) return true;
    if (v === null || v === 0 || v === '') columns[column] = null;
    else if (Number.isSafeInteger(Number(v)) && Number(v) > 0) columns[column] = Number(v);
    else return false;
    return true;
  };
  const ok =
    text('name') &&
    text('description') &&
    text('image') &&
    text('full_description') &&
    text('sku') &&
    text('code') &&
    ref('crop_type', 'crop_type_id') &&
    ref('category_id', 'category_id');
  if (!ok) return undefined;
  if (body.images !== undefined) {
    columns.images = Array.isArray(body.images) ? JSON.stringify(body.images) : String(body.images);
  }
  if (body.price !== undefined) {
    if (!Number.isSafeInteger(body.price) || (body.price as number) < 0) return undefined;
    columns.price = body.price;
  }
  if (body.status !== undefined) {
    const s = body.status;
    columns.status = s === true || s === 1 || s === '1' || s === 'true' ? 1 : 0;
  }
  if (columns.name !== undefined && (columns.name as string).trim() === '') return undefined;
  return columns;
}

const REF_TABLES: Record<string, string> = { crop_type_id: 'crop_types', category_id: 'product_categories' };

/** `exists` conditions for the sent references that are not null, on parameters $n. */
function referenceChecks(columns: Record<string, unknown>, values: unknown[]): string[] {
  const checks: string[] = [];
  for (const [column, table] of Object.entries(REF_TABLES)) {
    if (columns[column] === undefined || columns[column] === null) continue;
    values.push(columns[column]);
    checks.push(
      `exists (select 1 from ${table} where tenant_id = $1 and id = $${values.length} and deleted_at is null)`,
    );
  }
  return checks;
}

const app = Fastify({ logger: false });

app.get('/ping', async () => ({ ok: true }));

app.get('/api/crop/crop/:id', async (request, reply) => {
  const who = await caller(request, reply);
  if (!who) return reply;
  const id = idParam(request);
  const [row] =
    id === undefined
      ? []
      : await query<CropRow>(
          pool,
          'crop',
          `select ${CROP_COLUMNS} from crops where tenant_id = $1 and id = $2 and deleted_at is null`,
          [who.tenantId, id],
        );
  if (!row) return fail(reply, 404, 'http.not_found');
  const json = JSON.stringify(cropDetail(row));
  const tag = entityTag(json);
  reply.header('etag', tag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    const tags = tagsOf(ifNoneMatch);
    if (tags === '*' || tags.some((t) => t.opaque === tag)) return reply.code(304).send();
  }
  return sendJson(reply, 200, `[${json}]`);
});

app.get('/api/crop/crop', async (request, reply) => {
  const who = await caller(request, reply);
  if (!who) return reply;
  const p = paging(request, reply);
  if (!p) return reply;
  const rows = await query<CropRow>(
    pool,
    'crops',
    `select ${CROP_COLUMNS} from crops where tenant_id = $1 and deleted_at is null
     order by id desc limit $2 offset $3`,
    [who.tenantId, p.pageLimit + 1, p.page * p.pageLimit],
  );
  const hasNext = rows.length > p.pageLimit;
  if (hasNext) rows.pop();
  let total: number | undefined = p.page * p.pageLimit + rows.length;
  if (hasNext || (rows.length === 0 && p.page > 0)) {
    // The tenant's live crops, as the triggers keep them.
    const [count] = await query<{ live_count: number }>(
      pool,
      'crop-count',
      `select live_count from record_counts where tenant_id = $1 and table_name = 'crops'`,
      [who.tenantId],
    );
    total = count?.live_count ?? 0;
  }
  pagingHeaders(request, reply, p.page, p.pageLimit, total, hasNext);
  return sendJson(reply, 200, JSON.stringify(rows.map(cropListItem)));
});

app.post('/api/crop/crop', async (request, reply) => {
  const who = await caller(request, reply);
  if (!who) return reply;
  const body = (request.body ?? {}) as Record<string, unknown>;
  const columns = cropColumns(body);
  if (!columns || columns.name === undefined) {
    return fail(reply, 422, 'validation.failed', [{ field: 'name', message: 'field.invalid' }]);
  }
  const now = Date.now();
  const values: unknown[] = [who.tenantId];
  const names = Object.keys(columns);
  for (const name of names) values.push(columns[name]);
  const checks = referenceChecks(columns, values);
  values.push(now);
  const at = `$${values.length}`;
  // One statement: the row is inserted only when every reference names a live row of the tenant.
  const [row] = await query<CropRow>(
    pool,
    `crop-insert-${names.join(',')}`,
    `insert into crops (tenant_id, ${names.join(', ')}, created_at, updated_at)
     select $1, ${names.map((_, i) => `$${i + 2}`).join(', ')}, ${at}, ${at}
     ${checks.length > 0 ? `where ${checks.join(' and ')}` : ''}
     returning ${CROP_COLUMNS}`,
    values,
  );
  if (!row)
    return fail(reply, 422, 'validation.failed', [{ field: 'crop_type', message: 'field.not_found' }]);
  reply.header('location', `/api/crop/crop/${row.id}`);
  return sendJson(reply, 201, `[${JSON.stringify(cropDetail(row))}]`);
});

app.put('/api/crop/crop/:id', async (request, reply) => {
  const who = await caller(request, reply);
  if (!who) return reply;
  const id = idParam(request);
  if (id === undefined) return fail(reply, 404, 'http.not_found');
  const columns = cropColumns((request.body ?? {}) as Record<string, unknown>);
  if (!columns) return fail(reply, 422, 'validation.failed', [{ field: 'name', message: 'field.invalid' }]);
  const names = Object.keys(columns);
  const values: unknown[] = [who.tenantId, id, Date.now()];
  const sets = names.map((name) => {
    values.push(columns[name]);
    return `${name} = $${values.length}`;
  });
  const checks = referenceChecks(columns, values);
  const update = `update crops set ${[...sets, 'updated_at = $3'].join(', ')}
    where tenant_id = $1 and id = $2 and deleted_at is null ${checks.map((c) => `and ${c}`).join(' ')}
    returning ${CROP_COLUMNS}`;
  const ifMatch = request.headers['if-match'];
  const client = await pool.connect();
  let row: CropRow | undefined;
  try {
    // Under If-Match the row is held from the check to the write; without it one statement.
    if (ifMatch !== undefined) {
      await client.query('begin');
      const [current] = await query<CropRow>(
        client,
        'crop-lock',
        `select ${CROP_COLUMNS} from crops where tenant_id = $1 and id = $2 and deleted_at is null
         for no key update`,
        [who.tenantId, id],
      );
      if (!current) {
        await client.query('rollback');
        return fail(reply, 404, 'http.not_found');
      }
      const tag = entityTag(JSON.stringify(cropDetail(current)));
      const tags = tagsOf(ifMatch);
      if (tags !== '*' && !tags.some((t) => !t.weak && t.opaque === tag)) {
        await client.query('rollback');
        return fail(reply, 412, 'http.precondition_failed');
      }
    }
    [row] = await query<CropRow>(client, `crop-update-${names.join(',')}`, update, values);
    if (ifMatch !== undefined) await client.query(row ? 'commit' : 'rollback');
  } catch (err) {
    if (ifMatch !== undefined) await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (!row) {
    const [exists] = await query(
      pool,
      'crop-exists',
      'select 1 from crops where tenant_id = $1 and id = $2 and deleted_at is null',
      [who.tenantId, id],
    );
    return exists
      ? fail(reply, 422, 'validation.failed', [{ field: 'crop_type', message: 'field.not_found' }])
      : fail(reply, 404, 'http.not_found');
  }
  const json = JSON.stringify(cropDetail(row));
  reply.header('etag', entityTag(json));
  if (/(^|[,;\s])return\s*=\s*"?representation"?\s*($|[,;])/i.test(String(request.headers.prefer ?? ''))) {
    reply.header('preference-applied', 'return=representation');
    return sendJson(reply, 200, `[${json}]`);
  }
  return sendJson(reply, 200, JSON.stringify([{ status_code: 0, message: 'Updated successfully' }]));
});

// --- Seasons -----------------------------------------------------------------------------------

app.get('/api/crop/season/:id', async (request, reply) => {
  const who = await caller(request, reply);
  if (!who) return reply;
  const id = idParam(request);
  // The season with its crop, block, farm and template (nested records even when soft-deleted).
  const [r] =
    id === undefined
      ? []
      : await query<Record<string, any>>(
          pool,
          'season',
          `select s.*, c.name as crop_name, c.code as crop_code, b.name as block_name, t.name as template_name,
                  f.id as f_id, f.name as f_name, f.surface as f_surface, f.lat as f_lat, f.lng as f_lng,
                  f.address as f_address, f.published as f_published, f.ownership as f_ownership,
                  f.description as f_description, f."order" as f_order, f.avatar as f_avatar,
                  f.tenant_id as f_tenant_id, f.created_by as f_created_by
           from seasons s
           left join crops c on c.tenant_id = s.tenant_id and c.id = s.crop_id
           left join blocks b on b.tenant_id = s.tenant_id and b.id = s.block_id
           left join farms f on f.tenant_id = s.tenant_id and f.id = s.farm_id
           left join season_templates t on t.tenant_id = s.tenant_id and t.id = s.season_template_id
           where s.tenant_id = $1 and s.id = $2 and s.deleted_at is null`,
          [who.tenantId, id],
        );
  if (!r) return fail(reply, 404, 'http.not_found');
  const season = {
    id: r.id,
    name: r.name,
    start_date: r.start_date,
    end_date: r.end_date,
    description: r.description,
    season_template_id: r.season_template_id,
    crop_id: r.crop_id,
    status: r.status,
    template_name: r.season_template_id === null ? null : (r.template_name ?? null),
    image: r.image,
    code: r.code,
    season_custom_field1: r.season_custom_field1,
    season_custom_field2: r.season_custom_field2,
    season_custom_field3: r.season_custom_field3,
    season_custom_field4: r.season_custom_field4,
    season_custom_field5: r.season_custom_field5,
    block_id: r.block_id,
    block: r.block_id !== null && r.block_name !== null ? { id: r.block_id, name: r.block_name } : null,
    farm_id: r.farm_id,
    farm:
      r.f_id === null
        ? null
        : {
            id: r.f_id,
            name: r.f_name,
            surface: r.f_surface,
            lat: r.f_lat,
            lng: r.f_lng,
            address: r.f_address,
            published: r.f_published,
            ownership: r.f_ownership,
            description: r.f_description,
            order: r.f_order,
            avatar: r.f_avatar,
            tenant_id: r.f_tenant_id,
            created_by: r.f_created_by,
          },
    amount: r.amount,
    area: r.area,
    images: r.images,
    full_description: r.full_description,
    note_private: r.note_private,
    warning_info: r.warning_info,
    promotion_info: r.promotion_info,
    manufacturers: jsonArray(r.manufacturers),
    vendors: jsonArray(r.vendors),
    product_id: r.product_id,
    attach_files: r.attach_files === null ? null : jsonArray(r.attach_files),
    crop: { id: r.crop_id, name: r.crop_name ?? '', code: r.crop_code ?? '' },
    count_temp: r.count_temp,
    temp_from: r.temp_from,
    temp_to: r.temp_to,
  };
  const json = JSON.stringify(season);
  const tag = entityTag(json);
  reply.header('etag', tag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    const tags = tagsOf(ifNoneMatch);
    if (tags === '*' || tags.some((t) => t.opaque === tag)) return reply.code(304).send();
  }
  return sendJson(reply, 200, `[${json}]`);
});

// --- Diary tasks -------------------------------------------------------------------------------

/** A YYYY-MM-DD filter bound in epoch ms (a `to` date includes its whole day), or null if absent. */
function dayBound(value: string | undefined, edge: 'from' | 'to'): number | null | undefined {
  if (value === undefined || value === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms)) return undefined;
  return edge === 'to' ? ms + 86_399_999 : ms;
}

const COUNT_LIMIT = 10_000;

app.get('/api/diary/production', async (request, reply) => {
  const who = await caller(request, reply);
  if (!who) return reply;
  const p = paging(request, reply);
  if (!p) return reply;
  const q = request.query as Record<string, string | undefined>;
  const from = dayBound(q.from_date, 'from');
  const to = dayBound(q.to_date, 'to');
  if (from === undefined || to === undefined) {
    return fail(reply, 422, 'validation.failed', [{ field: 'from_date', message: 'field.format' }]);
  }
  // Tasks overlapping [from, to] (a task without an end lasts an instant), newest first. A task that
  // overlaps starts at most the tenant's widest task span before `from` (task_span_limits): that
  // bounds the start_at index range.
  const matching = `from diary_tasks d
    where d.tenant_id = $1 and d.deleted_at is null
      and ($2::bigint is null or d.start_at <= $2)
      and ($3::bigint is null or (d.start_at >= $3 - coalesce((select widest_span from task_span_limits
                                                               where tenant_id = $1), 0)
                                  and (d.end_at >= $3 or (d.end_at is null and d.start_at >= $3))))`;
  const rows = await query<Record<string, any>>(
    pool,
    'tasks',
    `select d.*, c.name as category_name, s.name as season_name,
            u.name as u_name, u.firstname as u_firstname, u.lastname as u_lastname, u.picture as u_picture,
            a.id as a_id, a.name as a_name, a.firstname as a_firstname, a.lastname as a_lastname,
            a.picture as a_picture
     from (select d.* ${matching} order by d.id desc limit $4 offset $5) d
     left join diary_categories c on c.tenant_id = d.tenant_id and c.id = d.category_task_id
     left join seasons s on s.tenant_id = d.tenant_id and s.id = d.season_id
     left join users u on u.tenant_id = d.tenant_id and u.id = d.user_id
     left join users a on a.tenant_id = d.tenant_id and a.id = d.assigned_to
     order by d.id desc`,
    [who.tenantId, to, from, p.pageLimit + 1, p.page * p.pageLimit],
  );
  const hasNext = rows.length > p.pageLimit;
  if (hasNext) rows.pop();
  const [subCates, count] = await Promise.all([
    rows.length === 0
      ? []
      : query<{ task_id: number; sub_cate_id: number; name: string }>(
          pool,
          'task-sub-cates',
          `select j.task_id, j.sub_cate_id, c.name
           from diary_task_subcategories j
           join diary_subcategories c on c.tenant_id = j.tenant_id and c.id = j.sub_cate_id
           where j.tenant_id = $1 and j.task_id = any($2::int[])
           order by j.sub_cate_id`,
          [who.tenantId, rows.map((r) => r.id)],
        ),
    hasNext || (rows.length === 0 && p.page > 0)
      ? query<{ n: number }>(
          pool,
          'task-count',
          `select count(*)::int as n from (select 1 ${matching} limit ${COUNT_LIMIT + 1}) m`,
          [who.tenantId, to, from],
        )
      : undefined,
  ]);
  let total: number | undefined = p.page * p.pageLimit + rows.length;
  if (count) total = (count[0]?.n ?? 0) > COUNT_LIMIT ? undefined : count[0]?.n;
  const now = Date.now();
  const tasks = rows.map((r) => ({
    id: r.id,
    name: r.name,
    start: formatTimestamp(r.start_at ?? r.created_at),
    end: formatTimestamp(r.end_at),
    description: r.description,
    images: jsonArray(r.images).map(String),
    location: r.location,
    category_task_id: r.category_task_id,
    category:
      r.category_task_id === null || r.category_name === null
        ? null
        : { id: r.category_task_id, name: r.category_name },
    assigned_to: r.assigned_to,
    assigned:
      r.a_id === null
        ? null
        : {
            id: r.a_id,
            name: r.a_name,
            firstname: r.a_firstname,
            lastname: r.a_lastname,
            picture: r.a_picture,
          },
    season_id: r.season_id,
    season: r.season_id === null || r.season_name === null ? null : { id: r.season_id, name: r.season_name },
    user_id: r.user_id,
    user:
      r.u_name === null
        ? { id: r.user_id, name: '', firstname: '', lastname: '', picture: null }
        : {
            id: r.user_id,
            name: r.u_name,
            firstname: r.u_firstname,
            lastname: r.u_lastname,
            picture: r.u_picture,
          },
    sub_cates: subCates
      .filter((s) => s.task_id === r.id)
      .map((s) => ({
        id: s.sub_cate_id,
        name: s.name,
        pivot: { production_daily_id: r.id, sub_cate_id: s.sub_cate_id },
      })),
    amount: r.amount,
    done_at: formatTimestamp(r.done_at),
    done_by: r.done_by,
    overdue: r.done_at === null && r.end_at !== null && r.end_at < now,
  }));
  pagingHeaders(request, reply, p.page, p.pageLimit, total, hasNext);
  return sendJson(reply, 200, JSON.stringify(tasks));
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end().then(() => process.exit(0))));
