import { Type } from 'typebox';
import { Id, IsoTime, NullableId, NullableText, TimestampInput } from '../../platform/resource/fields.js';

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
