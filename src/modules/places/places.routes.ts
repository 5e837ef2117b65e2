// Farms, blocks, zones and parcels: everyone reads them, owners change them.
import { resourceRoutes } from '../../platform/resource/routes.js';
import {
  Block,
  BlockInput,
  Farm,
  FarmInput,
  Parcel,
  ParcelInput,
  PlaceQuery,
  Zone,
  ZoneInput,
} from './places.schemas.js';
import { blockService, farmService, parcelService, zoneService } from './places.service.js';

export const farmRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'farms and places',
  noun: 'farm',
  ownerOnlyWrites: true,
  docs: {
    remove: {
      summary: 'Delete a farm',
      description:
        'Soft delete (extension): the record leaves lists and details. 409 while its blocks, zones and parcels are still there.',
      errors: [401, 403, 404, 409],
    },
  },
  path: '/api/farms',
  schemas: { item: Farm, create: FarmInput.create, update: FarmInput.update },
  service: farmService,
});

export const blockRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'farms and places',
  noun: 'block',
  ownerOnlyWrites: true,
  docs: {
    remove: {
      summary: 'Delete a block',
      description:
        'Soft delete (extension): the record leaves lists and details. 409 while its parcels are still there.',
      errors: [401, 403, 404, 409],
    },
  },
  path: '/api/blocks',
  schemas: { item: Block, create: BlockInput.create, update: BlockInput.update, query: PlaceQuery },
  service: blockService,
});

export const zoneRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'farms and places',
  noun: 'zone',
  ownerOnlyWrites: true,
  docs: {
    remove: {
      summary: 'Delete a zone',
      description:
        'Soft delete (extension): the record leaves lists and details. 409 while its parcels are still there.',
      errors: [401, 403, 404, 409],
    },
  },
  path: '/api/zones',
  schemas: { item: Zone, create: ZoneInput.create, update: ZoneInput.update, query: PlaceQuery },
  service: zoneService,
});

export const parcelRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'farms and places',
  noun: 'parcel',
  ownerOnlyWrites: true,
  path: '/api/parcels',
  schemas: { item: Parcel, create: ParcelInput.create, update: ParcelInput.update, query: PlaceQuery },
  service: parcelService,
});
