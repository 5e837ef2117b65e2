// Crop / livestock item (spec 2.1): the list form carries `image`; detail, create and update carry
// `images` (a JSON array serialized as a string) and `full_description`.
import { Type } from 'typebox';
import {
  ImagesInput,
  Integer,
  LONG_TEXT,
  MAX_ID,
  Name,
  NullableId,
  RefInput,
  SearchParam,
  StatusInput,
  Text,
} from '../../platform/resource/fields.js';

const MAX_PRICE = Number.MAX_SAFE_INTEGER;

const CropCommon = {
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String({ description: 'Notes for the item' }),
  location: Type.Null({ description: 'Always null' }),
  crop_type: NullableId('Crop type id; null when not set'),
  category_id: NullableId('Product category id; null when not set'),
  sku: Type.String(),
  code: Type.String(),
  price: Type.Integer(),
  status: Type.Boolean({ description: 'true = active' }),
};

export const CropListItem = Type.Object({
  ...CropCommon,
  image: Type.String({ description: 'URL or path' }),
});

export const Crop = Type.Object({
  ...CropCommon,
  images: Type.String({ description: 'A JSON array of image paths serialized as a string' }),
  full_description: Type.String({ description: 'HTML' }),
});

const CropFields = {
  description: Type.Optional(Text(LONG_TEXT)),
  crop_type: Type.Optional(RefInput('Crop type id')),
  category_id: Type.Optional(RefInput('Product category id; also accepted as category_id_')),
  image: Type.Optional(Text(2048, 'URL or path shown in lists')),
  images: Type.Optional(ImagesInput),
  full_description: Type.Optional(Text(LONG_TEXT, 'HTML')),
  sku: Type.Optional(Text()),
  code: Type.Optional(Text()),
  price: Type.Optional(Integer({ minimum: 0, maximum: MAX_PRICE })),
  status: Type.Optional(StatusInput),
};

export const CropCreate = Type.Object(
  { name: Name('Required'), ...CropFields },
  { additionalProperties: true },
);

export const CropUpdate = Type.Object(
  { name: Type.Optional(Name()), ...CropFields },
  { additionalProperties: true },
);

export const CropQuery = Type.Object({
  search: Type.Optional(
    SearchParam(
      'search[name], search[code], search[sku]: case-insensitive substring; search[price]: exact price. ' +
        'search[]=term matches name, code or SKU',
      ['name', 'code', 'sku', 'price'],
    ),
  ),
  status: Type.Optional(
    Type.Unsafe<boolean | number | string>({
      ...StatusInput,
      description: 'Extension: 1 (or true) only active items, 0 (or false) only inactive ones',
    }),
  ),
  category_id: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Extension: only this product category' }),
  ),
  crop_type: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Extension: only this crop type' }),
  ),
});
