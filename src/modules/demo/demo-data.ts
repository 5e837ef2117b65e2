// Demo reference data for a new tenant (`furrow tenant create --demo`, and the `demo` tenant that
// `npm start` creates on an empty database), so every endpoint has something to show at once.
// Everything goes through the resources' services, with the same checks as the API.
import type { Clock } from '../../platform/clock.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import type { RequestContext } from '../../platform/resource/context.js';
import { toAuthUser } from '../auth/identity.js';
import { categoryService } from '../categories/category.service.js';
import { cropTypeService } from '../crop-types/crop-type.service.js';
import { cropService } from '../crops/crop.service.js';
import { diaryCategoryService, diarySubcategoryService, taskService } from '../diary/diary.service.js';
import { blockService, farmService, parcelService, zoneService } from '../places/places.service.js';
import { seasonService } from '../seasons/season.service.js';
import { templateService } from '../templates/template.service.js';
import { findUserById } from '../users/user.repository.js';

export interface DemoSummary {
  farms: number;
  crops: number;
  seasons: number;
  tasks: number;
}

/** Loads the demo data into the tenant of scope, as the given user, in one transaction. */
export async function loadDemoData(
  deps: { clock: Clock },
  scope: Scope,
  userId: number,
): Promise<DemoSummary> {
  return inTransaction(scope, async (tx) => {
    const owner = await findUserById(tx, userId);
    if (!owner) throw new Error(`no user ${userId} in tenant ${scope.tenantId}`);
    const ctx: RequestContext = { scope: tx, clock: deps.clock, user: toAuthUser(owner) };
    const id = (record: { id: number }) => record.id;

    const farm = id(
      await farmService.create(ctx, {
        name: 'Green Valley Farm',
        surface: '12.5 ha',
        lat: '10.7769',
        lng: '106.7009',
        address: 'Cu Chi, Ho Chi Minh City',
        published: 1,
        ownership: 'owned',
        description: 'Demo farm',
        order: 1,
        avatar: [],
      }),
    );
    const northBlock = id(await blockService.create(ctx, { name: 'North block', farm_id: farm }));
    const southBlock = id(await blockService.create(ctx, { name: 'South block', farm_id: farm }));
    const greenhouse = id(await zoneService.create(ctx, { name: 'Greenhouse 1', farm_id: farm }));
    const openField = id(await zoneService.create(ctx, { name: 'Open field', farm_id: farm }));
    for (const [name, code, block, zone, area] of [
      ['Parcel A1', 'A1', northBlock, greenhouse, 1200],
      ['Parcel A2', 'A2', northBlock, greenhouse, 950],
      ['Parcel B1', 'B1', southBlock, openField, 4000],
    ] as const) {
      await parcelService.create(ctx, { name, code, farm_id: farm, block_id: block, zone_id: zone, area });
    }

    const vegetables = id(
      await cropTypeService.create(ctx, { name: 'Vegetables', description: 'Leafy and fruiting' }),
    );
    const tomato = id(await cropTypeService.create(ctx, { name: 'Cherry tomato', parent_id: vegetables }));
    const rice = id(await cropTypeService.create(ctx, { name: 'Rice ST25', description: 'Fragrant rice' }));
    const crops = id(await categoryService.create(ctx, { name: 'Crops', code: 'CROP', status: 1 }));
    const livestock = id(await categoryService.create(ctx, { name: 'Livestock', code: 'LIVE', status: 1 }));

    const tomatoCrop = id(
      await cropService.create(ctx, {
        name: 'Cherry tomato',
        code: 'TOM-01',
        sku: 'SKU-TOM-01',
        price: 45000,
        crop_type: tomato,
        category_id: crops,
        description: 'Greenhouse cherry tomatoes',
        full_description: '<p>Grown in Greenhouse 1.</p>',
        image: '/manage/demo/tomato.svg',
        images: ['/manage/demo/tomato.svg'],
        status: 1,
      }),
    );
    const riceCrop = id(
      await cropService.create(ctx, {
        name: 'Rice ST25',
        code: 'RICE-25',
        sku: 'SKU-RICE-25',
        price: 30000,
        crop_type: rice,
        category_id: crops,
        status: 1,
      }),
    );
    await cropService.create(ctx, {
      name: 'Laying hens',
      code: 'HEN-01',
      sku: 'SKU-HEN-01',
      price: 120000,
      category_id: livestock,
      status: 0,
    });

    const template = id(
      await templateService.create(ctx, {
        name: 'Tomato season (greenhouse)',
        crop_id: tomatoCrop,
        description: 'Planting to harvest in about 90 days',
        block_id: northBlock,
        order: 1,
      }),
    );
    const season = id(
      await seasonService.create(ctx, {
        name: 'Tomato spring 2026',
        code: '',
        crop_id: tomatoCrop,
        season_template_id: template,
        farm_id: farm,
        block_id: northBlock,
        start_date: '2026-02-01',
        end_date: '2026-05-01',
        images: [],
        manufacturers: [],
        vendors: [],
        season_custom_field1: '',
        season_custom_field2: '',
        season_custom_field3: '',
        season_custom_field4: '',
      }),
    );
    await seasonService.create(ctx, {
      name: 'Rice summer 2026',
      code: '',
      crop_id: riceCrop,
      farm_id: farm,
      block_id: southBlock,
      start_date: '2026-05-15',
      end_date: '2026-08-30',
    });

    const planting = id(await diaryCategoryService.create(ctx, { name: 'Planting' }));
    const care = id(await diaryCategoryService.create(ctx, { name: 'Care' }));
    await diaryCategoryService.create(ctx, { name: 'Harvest' });
    const watering = id(
      await diarySubcategoryService.create(ctx, { name: 'Watering', category_task_id: care }),
    );
    const fertilising = id(
      await diarySubcategoryService.create(ctx, { name: 'Fertilising', category_task_id: care }),
    );
    await diarySubcategoryService.create(ctx, { name: 'Sowing', category_task_id: planting });
    await taskService.create(ctx, {
      name: 'Water and fertilise the seedlings',
      description: '<p>Drip irrigation, 20 minutes.</p>',
      start: '2026-02-10 07:00:00',
      end: '2026-02-10 08:00:00',
      location: 'Greenhouse 1',
      season_id: season,
      category_task_id: care,
      assigned_to: userId,
      sub_cates: [watering, fertilising],
      images: [],
    });
    return { farms: 1, crops: 3, seasons: 2, tasks: 1 };
  });
}
