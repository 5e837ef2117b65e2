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
  tag: 'farms and places',
  noun: 'farm',
  path: '/api/farms',
  schemas: { item: Farm, create: FarmInput.create, update: FarmInput.update },
  service: farmService,
});

export const blockRoutes = resourceRoutes({
  tag: 'farms and places',
  noun: 'block',
  path: '/api/blocks',
  schemas: { item: Block, create: BlockInput.create, update: BlockInput.update, query: PlaceQuery },
  service: blockService,
});

export const zoneRoutes = resourceRoutes({
  tag: 'farms and places',
  noun: 'zone',
  path: '/api/zones',
  schemas: { item: Zone, create: ZoneInput.create, update: ZoneInput.update, query: PlaceQuery },
  service: zoneService,
});

export const parcelRoutes = resourceRoutes({
  tag: 'farms and places',
  noun: 'parcel',
  path: '/api/parcels',
  schemas: { item: Parcel, create: ParcelInput.create, update: ParcelInput.update, query: PlaceQuery },
  service: parcelService,
});
