// Field schemas for the lenient inputs the original service's clients send, and the wire formats of
// its answers. Schemas validate and document; input.ts turns a validated value into the stored one.
// Form-encoded bodies arrive as strings: Ajv's coercion turns "12" into 12.
import { type TSchema, type TUnsafe, Type } from 'typebox';
import { DATE_TIME_PATTERN } from '../dates.js';

export const MAX_ID = 2_147_483_647;
export const MAX_INT = 2_147_483_647;

export const Id = (description?: string) =>
  Type.Integer({ minimum: 1, maximum: MAX_ID, ...(description ? { description } : {}) });

/** A reference id in requests: an integer, a numeric string, null; 0 also means "none". */
export const RefInput = (description: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 0, maximum: MAX_ID, description });

/** A reference id in answers. */
export const NullableId = (description?: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], ...(description ? { description } : {}) });

export const Text = (maxLength = 255, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

export const NullableText = (maxLength = 255, description?: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength,
    ...(description ? { description } : {}),
  });

export const Integer = (options: { minimum?: number; maximum?: number; description?: string } = {}) =>
  Type.Integer({ minimum: -MAX_INT, maximum: MAX_INT, ...options });

export const NullableInteger = (options: { minimum?: number; maximum?: number; description?: string } = {}) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: -MAX_INT, maximum: MAX_INT, ...options });

export const NullableNumber = (description?: string) =>
  Type.Unsafe<number | null>({
    type: ['number', 'null'],
    minimum: 0,
    maximum: 1e12,
    ...(description ? { description } : {}),
  });

export const LONG_TEXT = 200_000;

/** status in requests: 1/0, true/false, "1"/"0", "true"/"false". */
export const StatusInput: TUnsafe<boolean | number | string> = Type.Unsafe({
  type: ['boolean', 'integer', 'string'],
  enum: [true, false, 1, 0, '1', '0', 'true', 'false'],
  description: '1 = active, 0 = inactive; true/false accepted',
});

/** A list of image paths: an array, or a JSON array serialized as a string. */
export const ImagesInput: TUnsafe<string | string[]> = Type.Unsafe({
  type: ['array', 'string'],
  items: { type: 'string', maxLength: 2048 },
  maxItems: 100,
  maxLength: 100_000,
  description: 'An array of image paths, or a JSON array serialized as a string',
});

/** A JSON array whose elements the specification does not describe (manufacturers, vendors, files). */
export const JsonArrayInput: TUnsafe<unknown[] | string> = Type.Unsafe({
  type: ['array', 'string'],
  maxItems: 1000,
  maxLength: 100_000,
  description: 'An array, or a JSON array serialized as a string',
});

export const NullableJsonArrayInput: TUnsafe<unknown[] | string | null> = Type.Unsafe({
  type: ['array', 'string', 'null'],
  maxItems: 1000,
  maxLength: 100_000,
  description: 'An array, or a JSON array serialized as a string; null clears',
});

/** `YYYY-MM-DD HH:MM:SS` or ISO 8601. */
export const TimestampInput = (description: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength: 40,
    pattern: DATE_TIME_PATTERN,
    description: `${description}; YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601`,
  });

/** `YYYY-MM-DD` (a time part, if sent, is ignored). */
export const DateInput = (description: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength: 40,
    pattern: DATE_TIME_PATTERN,
    description: `${description}; YYYY-MM-DD`,
  });

export const DateFilter = (description: string) =>
  Type.String({
    maxLength: 40,
    pattern: DATE_TIME_PATTERN,
    description: `${description}; YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC)`,
  });

/**
 * A search parameter: `search[name]=x` (object), `search[]=x` (array) or `search=x` (string). `keys`
 * are the bracket keys that pick a column: the same rule as any other key for validation, named so
 * that the OpenAPI document declares them (`style: deepObject`, platform/http/openapi.ts).
 */
export const SearchParam = (description: string, keys: readonly string[] = []): TSchema =>
  Type.Unsafe<string | string[] | Record<string, string>>({
    type: ['string', 'array', 'object'],
    maxLength: 255,
    maxItems: 20,
    items: { type: 'string', maxLength: 255 },
    maxProperties: 20,
    ...(keys.length === 0
      ? {}
      : { properties: Object.fromEntries(keys.map((key) => [key, { type: 'string', maxLength: 255 }])) }),
    additionalProperties: { type: 'string', maxLength: 255 },
    description,
  });

/** A record's name: required on create, never empty. */
export const Name = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 255, ...(description ? { description } : {}) });

/** An instant in an answer, ISO 8601 in UTC (the IoT and harvest answers). */
export const IsoTime = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} (ISO 8601 UTC)` });

export const NullableIsoTime = (description: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    format: 'date-time',
    description: `${description} (ISO 8601 UTC)`,
  });
