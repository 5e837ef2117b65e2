// Reference data the spec's records point to (extension): farms (spec 2.7), blocks, zones, parcels.
import { Type } from 'typebox';
import {
  ImagesInput,
  Integer,
  LONG_TEXT,
  Name,
  NullableId,
  NullableNumber,
  RefInput,
  StatusInput,
  Text,
} from '../../platform/resource/fields.js';

const withName = <T extends object>(fields: T) => ({
  create: Type.Object({ name: Name('Required'), ...fields }, { additionalProperties: true }),
  update: Type.Object({ name: Type.Optional(Name()), ...fields }, { additionalProperties: true }),
});

/** A string field that also accepts a number (coordinates, surface). */
const StringOrNumber = (description: string) =>
  Type.Unsafe<string | number>({ type: ['string', 'number'], maxLength: 100, description });

export const Farm = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  surface: Type.String({ description: 'Number with a unit, e.g. "2.5 ha"' }),
  lat: Type.String({ description: 'Decimal degrees' }),
  lng: Type.String({ description: 'Decimal degrees' }),
  address: Type.String(),
  published: Type.Integer({ description: '1 = published' }),
  ownership: Type.String(),
  description: Type.String(),
  order: Type.Integer(),
  avatar: Type.String({ description: 'A JSON array serialized as a string' }),
  tenant_id: Type.Integer(),
  created_by: NullableId('User who created the farm'),
});

export const FarmInput = withName({
  surface: Type.Optional(StringOrNumber('Number with a unit')),
  lat: Type.Optional(StringOrNumber('Decimal degrees')),
  lng: Type.Optional(StringOrNumber('Decimal degrees')),
  address: Type.Optional(Text(1000)),
  published: Type.Optional(StatusInput),
  ownership: Type.Optional(Text()),
  description: Type.Optional(Text(LONG_TEXT)),
  order: Type.Optional(Integer()),
  avatar: Type.Optional(ImagesInput),
});

export const Block = Type.Object({ id: Type.Integer(), name: Type.String(), farm_id: Type.Integer() });
export const Zone = Block;

const FarmRef = { farm_id: RefInput('Farm id (required on create)') };
export const BlockInput = {
  create: Type.Object({ name: Name('Required'), ...FarmRef }, { additionalProperties: true }),
  update: Type.Object(
    { name: Type.Optional(Name()), farm_id: Type.Optional(FarmRef.farm_id) },
    { additionalProperties: true },
  ),
};
export const ZoneInput = BlockInput;

export const Parcel = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  farm_id: Type.Integer(),
  block_id: NullableId(),
  zone_id: NullableId(),
  area: NullableNumber('Area in square metres'),
});

const ParcelFields = {
  code: Type.Optional(Text()),
  block_id: Type.Optional(RefInput('Block id')),
  zone_id: Type.Optional(RefInput('Zone id')),
  area: Type.Optional(NullableNumber('Area in square metres')),
};
export const ParcelInput = {
  create: Type.Object(
    { name: Name('Required'), ...FarmRef, ...ParcelFields },
    { additionalProperties: true },
  ),
  update: Type.Object(
    { name: Type.Optional(Name()), farm_id: Type.Optional(FarmRef.farm_id), ...ParcelFields },
    { additionalProperties: true },
  ),
};

export const PlaceQuery = Type.Object({
  farm_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Only this farm' })),
});
