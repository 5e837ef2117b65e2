// The outbox's reads of a tenant's endpoints: those that subscribe to an event's kind, with their
// filters parsed, once per event or once per transaction (EndpointsOfTransaction).
import { isPostgresDb } from '../../platform/db/database.js';
import { type Scope, selectScoped } from '../../platform/db/scope.js';
import { type EndpointFilters, parseFilters } from './endpoint-filters.js';
import { subscribes } from './events.js';
import type { EndpointRow } from './webhook.repository.js';

/** An endpoint as the outbox needs it: its status, the tenant's code, its filters parsed. */
export interface SubscribedEndpoint {
  id: number;
  status: EndpointRow['status'];
  tenant_code: string;
  filters: EndpointFilters | null;
}

/**
 * Every endpoint of the scope's tenant with the kinds it subscribes to. On PostgreSQL the endpoint
 * rows are share-locked until the caller's transaction ends, so enabling or pausing an endpoint
 * waits for it: the status read here stays the status when the rows commit.
 */
async function tenantEndpoints(scope: Scope): Promise<(SubscribedEndpoint & { events: string[] })[]> {
  let query = selectScoped(scope, 'webhook_endpoints')
    .innerJoin('tenants', 'tenants.id', 'webhook_endpoints.tenant_id')
    .select([
      'webhook_endpoints.id',
      'webhook_endpoints.status',
      'webhook_endpoints.events',
      'webhook_endpoints.filters',
      'tenants.code',
    ])
    .orderBy('webhook_endpoints.id');
  if (isPostgresDb(scope.db)) query = query.forShare('webhook_endpoints');
  const rows = await query.execute();
  // Each endpoint's filters are parsed once here, for every delivery its events would make.
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    tenant_code: r.code,
    filters: parseFilters(r.filters),
    events: JSON.parse(r.events) as string[],
  }));
}

/** Endpoints of the scope's tenant that subscribe to `type` or to "*", with the tenant's code. */
export async function subscribedEndpoints(scope: Scope, type: string): Promise<SubscribedEndpoint[]> {
  return subscribedOf(await tenantEndpoints(scope), type);
}

function subscribedOf(
  endpoints: readonly (SubscribedEndpoint & { events: string[] })[],
  type: string,
): SubscribedEndpoint[] {
  return endpoints
    .filter((e) => subscribes(e.events, type))
    .map(({ id, status, tenant_code, filters }) => ({ id, status, tenant_code, filters }));
}

/**
 * The tenant's endpoints as the first event of one transaction read them (and on PostgreSQL
 * share-locked them: they cannot change until it ends), for its later events: a batch of readings
 * that raises and resolves many alerts reads them once, not once per event. Only for a
 * transaction that changes no endpoint itself.
 */
export class EndpointsOfTransaction {
  private endpoints: Promise<(SubscribedEndpoint & { events: string[] })[]> | undefined;

  async subscribedTo(scope: Scope, type: string): Promise<SubscribedEndpoint[]> {
    this.endpoints ??= tenantEndpoints(scope);
    return subscribedOf(await this.endpoints, type);
  }
}
