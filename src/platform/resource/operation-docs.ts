// The OpenAPI side of a resource's operations: their text where it is not the pattern's, their
// operationIds (listCrops, getCrop, createCrop, updateCrop, deleteCrop) and the resource's schemas
// named as components (Crop, CropCreate, CropUpdate).
import type { TSchema } from 'typebox';
import { nameSchema } from '../http/openapi-components.js';

/** An operation's OpenAPI text, error answers and answer schema, where they are not the pattern's. */
export interface OperationDocs {
  summary: string;
  description?: string;
  errors?: number[];
  /** The schema of the success answer (the record with its secret, the original service's confirmation). */
  answer?: TSchema;
}

/** The record's name and its plural, for operationIds: 'crop type' gives CropType and CropTypes. */
export function operationNames(def: { noun: string; name?: string; pluralName?: string }) {
  const name =
    def.name ??
    def.noun
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((word) => word[0]?.toUpperCase() + word.slice(1).toLowerCase())
      .join('');
  const plural =
    def.pluralName ??
    (/[^aeiou]y$/.test(name)
      ? `${name.slice(0, -1)}ies`
      : /(s|x|ch|sh)$/.test(name)
        ? `${name}es`
        : `${name}s`);
  return { name, plural };
}

/** The resource's schemas as named components: Crop, CropListItem, CropCreate, CropUpdate. */
export function nameResourceSchemas(def: {
  noun: string;
  name?: string;
  schemas: { item: TSchema; listItem?: TSchema; create?: TSchema; update?: TSchema };
}) {
  const { name } = operationNames(def);
  const { item, listItem, create, update } = def.schemas;
  nameSchema(name, item);
  if (listItem !== undefined && listItem !== item) nameSchema(`${name}ListItem`, listItem);
  if (create !== undefined) nameSchema(`${name}Create`, create);
  if (update !== undefined) nameSchema(`${name}Update`, update);
}

/** The summary and description of an operation: the resource's own, else the pattern's. */
export function describe(own: OperationDocs | undefined, pattern: { summary: string; description: string }) {
  if (!own) return pattern;
  return { summary: own.summary, ...(own.description === undefined ? {} : { description: own.description }) };
}
