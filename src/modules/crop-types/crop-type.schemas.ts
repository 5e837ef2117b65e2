// Crop type (variety), spec 2.2: parent_id is 0 when there is no parent; `parent-id` is accepted.
import { Type } from 'typebox';
import { LONG_TEXT, Name, NullableText, RefInput, Text } from '../../platform/resource/fields.js';

export const CropType = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  parent_id: Type.Integer({ description: '0 when there is no parent' }),
  images: Type.Union([Type.String(), Type.Null()], { description: 'URL of an image' }),
});

const Fields = {
  description: Type.Optional(Text(LONG_TEXT)),
  parent_id: Type.Optional(RefInput('Parent crop type; 0 or null for none; also accepted as parent-id')),
  images: Type.Optional(NullableText(2048, 'URL of an image')),
};

export const CropTypeCreate = Type.Object(
  { name: Name('Required'), ...Fields },
  { additionalProperties: true },
);
export const CropTypeUpdate = Type.Object(
  { name: Type.Optional(Name()), ...Fields },
  { additionalProperties: true },
);
