// Named schemas of the OpenAPI document. A schema is named where it is defined (`nameSchema('Crop',
// CropShape)`, or by resourceRoutes from the resource's name); the routes keep using the schema
// itself, so validation and serialization never change, and the document's transform replaces every
// copy of it with a `$ref` to `components.schemas`.
import type { TSchema } from 'typebox';

const named = new Map<string, TSchema>();

/** Names a schema for the document's components; the same name for another schema is a mistake. */
export function nameSchema<T extends TSchema>(name: string, schema: T): T {
  const known = named.get(name);
  if (known !== undefined && canonical(known) !== canonical(schema)) {
    throw new Error(`OpenAPI schema name ${name} is given to two different schemas`);
  }
  named.set(name, schema);
  return schema;
}

/** JSON with sorted keys: two schemas with the same content have the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

type Json = unknown;

/** A schema as @fastify/swagger writes it in the document: `const` as a one-value `enum`. */
function asDocumented(value: Json): Json {
  if (Array.isArray(value)) return value.map(asDocumented);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, Json> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'const') out.enum = [v];
    else if (key !== '$id' && key !== '$schema')
      out[key] = key === 'properties' || typeof v === 'object' ? asDocumented(v) : v;
  }
  return out;
}

/**
 * Replaces every copy of a named schema in `paths` (and `webhooks`) with a `$ref`, and lists the
 * named schemas that are referenced under `components.schemas`. A named schema found inside another
 * one is referenced there too.
 */
export function withNamedSchemas<D extends Record<string, unknown>>(document: D): D {
  const byText = new Map<string, string>();
  for (const [name, schema] of named) {
    const text = canonical(asDocumented(JSON.parse(JSON.stringify(schema))));
    if (!byText.has(text)) byText.set(text, name);
  }
  const used = new Set<string>();
  const replace = (value: Json, root?: string): Json => {
    if (Array.isArray(value)) return value.map((v) => replace(v));
    if (!value || typeof value !== 'object') return value;
    const name = byText.get(canonical(value));
    if (name !== undefined && name !== root) {
      used.add(name);
      return { $ref: `#/components/schemas/${name}` };
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v)]));
  };
  const out: Record<string, unknown> = { ...document };
  out.paths = replace(document.paths);
  if (document.webhooks) out.webhooks = replace(document.webhooks);
  const schemas: Record<string, Json> = {};
  const pending = [...used];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (schemas[name]) continue;
    const before = new Set(used);
    schemas[name] = replace(asDocumented(JSON.parse(JSON.stringify(named.get(name)))), name);
    for (const n of used) if (!before.has(n)) pending.push(n);
  }
  const components = (document.components ?? {}) as Record<string, unknown>;
  out.components = {
    ...components,
    schemas: Object.fromEntries(
      Object.keys(schemas)
        .sort()
        .map((n) => [n, schemas[n]]),
    ),
  };
  return out as D;
}
