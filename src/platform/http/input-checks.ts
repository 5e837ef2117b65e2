// Checks on every request's query and body as sent, before Ajv validates and coerces them:
// text must be storable the same way on both databases, and numbers must be plain decimals.
// - U+0000 cannot be stored in PostgreSQL text, and a lone UTF-16 surrogate ("\ud800") becomes
//   invalid UTF-8 on SQLite and U+FFFD on PostgreSQL: both are refused with a 422 naming the field.
// - Ajv's coercion reads any string that Number() reads ("0x10" is 16, "1e400" and "Infinity" are
//   Infinity): a numeric field takes only a decimal ("12", "-3", "2.5"); a non-finite number
//   (JSON's 1e400) is refused too.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { type FieldError, validationFailed } from '../errors.js';
import { isStorableText } from '../text.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks its text itself (login answers "incorrect" rather than a 422). */
    ownTextChecks?: boolean;
  }
}

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode | SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
/** Errors reported per request; past this the rest are not looked for. */
const MAX_REPORTED = 20;
/** Values deeper than this are refused elsewhere (MAX_JSON_DEPTH); the walk stops there. */
const MAX_WALK_DEPTH = 32;

/** Field errors of a request value, walked along its schema (which may be undefined). */
export function inputProblems(value: unknown, schema: SchemaNode | undefined, root: string): FieldError[] {
  const errors: FieldError[] = [];
  const visit = (v: unknown, node: SchemaNode | undefined, field: string, depth: number) => {
    if (errors.length >= MAX_REPORTED || depth > MAX_WALK_DEPTH) return;
    if (typeof v === 'string') {
      if (!isStorableText(v)) errors.push({ field: field || root, message: 'field.text' });
      // An empty string is left to Ajv: it reads "" as null where a field may be null (form bodies
      // send empty fields) and refuses it elsewhere.
      else if (v !== '' && node && takesNumberNotString(node) && !DECIMAL.test(v))
        errors.push(numberError(field || root, node));
      return;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) errors.push(numberError(field || root, node));
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      const items = node ? itemSchema(node) : undefined;
      for (const [i, inner] of v.entries())
        visit(inner, items, field ? `${field}.${i}` : String(i), depth + 1);
      return;
    }
    const object = v as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const inner = object[key];
      const name = field ? `${field}.${key}` : key;
      if (!isStorableText(key)) {
        errors.push({ field: field || root, message: 'field.text' });
        continue;
      }
      visit(inner, node ? propertySchema(node, key) : undefined, name, depth + 1);
    }
  };
  visit(value, schema, '', 0);
  return errors;
}

function numberError(field: string, node: SchemaNode | undefined): FieldError {
  const integer =
    node !== undefined && typesOf(node).includes('integer') && !typesOf(node).includes('number');
  return { field, message: 'field.type', params: { type: integer ? 'an integer' : 'a number' } };
}

/** The types a schema node takes, its branches' too; kept per node (schemas do not change). */
const typesOfNode = new WeakMap<SchemaNode, string[]>();

function typesOf(node: SchemaNode): string[] {
  let types = typesOfNode.get(node);
  if (types === undefined) {
    const own = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type];
    const branches = [...(node.anyOf ?? []), ...(node.oneOf ?? [])].flatMap(typesOf);
    types = [...own, ...branches];
    typesOfNode.set(node, types);
  }
  return types;
}

/** A field whose schema takes a number and not a string: a string there is coerced by Ajv. */
function takesNumberNotString(node: SchemaNode): boolean {
  const types = typesOf(node);
  return (types.includes('integer') || types.includes('number')) && !types.includes('string');
}

function propertySchema(node: SchemaNode, key: string): SchemaNode | undefined {
  if (node.properties && Object.hasOwn(node.properties, key)) return node.properties[key];
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    return node.additionalProperties;
  }
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
    const found = propertySchema(branch, key);
    if (found) return found;
  }
  return undefined;
}

function itemSchema(node: SchemaNode): SchemaNode | undefined {
  if (node.items && !Array.isArray(node.items)) return node.items;
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
    const found = itemSchema(branch);
    if (found) return found;
  }
  return undefined;
}

/** Problems found before validation, reported with Ajv's own (or alone, when Ajv finds none). */
const problemsOf = new WeakMap<FastifyRequest, FieldError[]>();

async function findInputProblems(request: FastifyRequest): Promise<void> {
  const schema = request.routeOptions.schema as { querystring?: SchemaNode; body?: SchemaNode } | undefined;
  const errors = inputProblems(request.query, schema?.querystring, 'query');
  if (request.body !== undefined) errors.push(...inputProblems(request.body, schema?.body, 'body'));
  if (errors.length > 0) problemsOf.set(request, errors.slice(0, MAX_REPORTED));
}

async function refuseInputProblems(request: FastifyRequest): Promise<void> {
  const problems = problemsOf.get(request);
  if (problems) throw validationFailed(problems);
}

/** Ajv's field errors of a request with the problems found before validation first, one per field. */
export function withInputProblems(request: FastifyRequest, ajvErrors: FieldError[]): FieldError[] {
  const problems = problemsOf.get(request);
  if (!problems) return ajvErrors;
  const named = new Set(problems.map((p) => p.field));
  return [...problems, ...ajvErrors.filter((e) => !named.has(e.field))];
}

/**
 * Adds the checks to every route: the search as its last preValidation step, after the route's own
 * (a resource's field aliases are applied first, so `parent-id` is checked as `parent_id`), and the
 * refusal as its first preHandler step, once Ajv has found nothing else to report.
 */
export function registerInputChecks(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.ownTextChecks) return;
    route.preValidation = [...[route.preValidation ?? []].flat(), findInputProblems];
    route.preHandler = [refuseInputProblems, ...[route.preHandler ?? []].flat()];
  });
}
