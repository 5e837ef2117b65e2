import { Type } from 'typebox';
import {
  DateFilter,
  Id,
  IsoTime,
  NullableId,
  NullableText,
  TimestampInput,
} from '../../platform/resource/fields.js';

export const Batch = Type.Object({
  id: Type.Integer(),
  parcel_id: Type.Integer(),
  crop_type_id: Type.Integer(),
  quantity_kg: Type.Number({ description: 'Kilograms' }),
  harvested_at: IsoTime('When it was harvested'),
  notes: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
  status: Type.Union([Type.Literal('declared'), Type.Literal('confirmed')]),
  declared_by: NullableId('User who declared it'),
  confirmed_by: NullableId('User who confirmed it'),
  confirmed_at: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    format: 'date-time',
    description: 'ISO 8601 UTC',
  }),
  created_at: IsoTime('Declared'),
  updated_at: IsoTime('Last changed'),
});

export const BatchCreate = Type.Object(
  {
    parcel_id: Id('Parcel harvested'),
    crop_type_id: Id('Crop type harvested'),
    quantity_kg: Type.Number({ exclusiveMinimum: 0, maximum: 1e9, description: 'Kilograms, more than 0' }),
    harvested_at: Type.Optional(TimestampInput('When it was harvested; default now')),
    notes: Type.Optional(NullableText(2000, 'Free notes')),
  },
  { additionalProperties: true },
);

export const BatchQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('declared'), Type.Literal('confirmed')])),
  },
  { additionalProperties: true },
);

export const TotalsQuery = {
  by: Type.Union([Type.Literal('crop_type'), Type.Literal('parcel')], {
    description: 'Group by crop type or by parcel',
  }),
  from: Type.Optional(DateFilter('Batches harvested from')),
  to: Type.Optional(DateFilter('Batches harvested until (a date includes its whole day)')),
  status: Type.Optional(
    Type.Union([Type.Literal('confirmed'), Type.Literal('declared'), Type.Literal('all')], {
      default: 'confirmed',
      description: 'Batches of this status (default confirmed); all counts both',
    }),
  ),
};

export const Totals = Type.Array(
  Type.Object({
    id: Type.Integer({ description: 'Crop type or parcel id' }),
    name: Type.String({ description: 'Its name' }),
    quantity_kg: Type.Number({ description: 'Kilograms harvested, to the gram' }),
    batch_count: Type.Integer({ description: 'Batches counted' }),
  }),
);
