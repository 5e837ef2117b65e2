// Product category (crop/livestock group), spec 2.3: status is an integer in answers.
import { Type } from 'typebox';
import { LONG_TEXT, Name, NullableId, RefInput, StatusInput, Text } from '../../platform/resource/fields.js';

export const Category = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  description: Type.String(),
  status: Type.Integer({ description: '1 = active, 0 = inactive' }),
  parent_id: NullableId('Parent category; null when none'),
});

const Fields = {
  code: Type.Optional(Text()),
  description: Type.Optional(Text(LONG_TEXT)),
  status: Type.Optional(StatusInput),
  parent_id: Type.Optional(RefInput('Parent category; 0 or null for none; also accepted as parent-id')),
};

export const CategoryCreate = Type.Object(
  { name: Name('Required'), ...Fields },
  { additionalProperties: true },
);
export const CategoryUpdate = Type.Object(
  { name: Type.Optional(Name()), ...Fields },
  { additionalProperties: true },
);
