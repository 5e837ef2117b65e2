// The OpenAPI document with its named schemas written out in place, for tests that read a route's
// schema: `inlineSchemas(doc).paths['/api/crop/crop'].get.responses['200']...`.

/** A copy of the document where every `$ref` to `#/components/schemas/...` is the schema itself. */
export function inlineSchemas<T>(document: T): T {
  const schemas =
    (document as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {};
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (!value || typeof value !== 'object') return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const target = schemas[ref.slice('#/components/schemas/'.length)];
      if (target === undefined) throw new Error(`unresolved ${ref}`);
      return inline(target);
    }
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, inline(v)]));
  };
  return inline(document) as T;
}
