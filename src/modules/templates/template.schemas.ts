// Season template, spec 2.6. Detail and create answer {data: record}; templates cannot be updated.
import { Type } from 'typebox';
import {
  DateFilter,
  LONG_TEXT,
  Name,
  NullableId,
  NullableInteger,
  NullableText,
  RefInput,
  SearchParam,
} from '../../platform/resource/fields.js';

export const Template = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  crop_type: Type.Union([Type.String(), Type.Null()]),
  crop_id: Type.Integer(),
  crop: Type.Object({ id: Type.Integer(), name: Type.String() }),
  order: Type.Union([Type.Integer(), Type.Null()]),
  block_id: NullableId(),
  block: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()]),
});

export const TemplateCreate = Type.Object(
  {
    name: Name('Required'),
    crop_id: RefInput('Crop id (required)'),
    description: Type.Optional(NullableText(LONG_TEXT)),
    crop_type: Type.Optional(NullableText()),
    order: Type.Optional(NullableInteger()),
    block_id: Type.Optional(RefInput('Block id')),
  },
  { additionalProperties: true },
);

export const TemplateQuery = Type.Object({
  search: Type.Optional(SearchParam('search[]=term: case-insensitive substring of the name', ['name'])),
  from_date: Type.Optional(DateFilter('Templates created from')),
  to_date: Type.Optional(DateFilter('Templates created until (a date includes its whole day)')),
});
