// Farms and places, crops, crop types, product categories, diary tasks, seasons and templates.
// Every table is tenant-owned and soft-deleted (deleted_at). Dates of seasons are YYYY-MM-DD text;
// timestamps are epoch milliseconds; booleans 0/1; JSON arrays as text.
import type { Generated } from 'kysely';

interface TenantOwned {
  id: Generated<number>;
  tenant_id: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface FarmsTable extends TenantOwned {
  name: string;
  surface: string;
  lat: string;
  lng: string;
  address: string;
  published: number;
  ownership: string;
  description: string;
  order: number;
  /** JSON array as text. */
  avatar: string;
  created_by: number | null;
}

export interface BlocksTable extends TenantOwned {
  name: string;
  farm_id: number;
}

export interface ZonesTable extends TenantOwned {
  name: string;
  farm_id: number;
}

export interface ParcelsTable extends TenantOwned {
  name: string;
  code: string;
  farm_id: number;
  block_id: number | null;
  zone_id: number | null;
  area: number | null;
}

export interface CropTypesTable extends TenantOwned {
  name: string;
  description: string;
  parent_id: number | null;
  images: string | null;
}

export interface ProductCategoriesTable extends TenantOwned {
  name: string;
  code: string;
  description: string;
  status: number;
  parent_id: number | null;
}

export interface CropsTable extends TenantOwned {
  name: string;
  description: string;
  crop_type_id: number | null;
  category_id: number | null;
  image: string;
  images: string;
  full_description: string;
  sku: string;
  code: string;
  price: number;
  status: number;
}

export interface DiaryCategoriesTable extends TenantOwned {
  name: string;
}

export interface DiarySubcategoriesTable extends TenantOwned {
  name: string;
  category_task_id: number;
}

export interface SeasonTemplatesTable extends TenantOwned {
  name: string;
  description: string | null;
  crop_type: string | null;
  crop_id: number;
  order: number | null;
  block_id: number | null;
}

export interface SeasonsTable extends TenantOwned {
  name: string;
  code: string;
  start_date: string | null;
  end_date: string | null;
  description: string | null;
  season_template_id: number | null;
  crop_id: number;
  status: string;
  image: string | null;
  images: string;
  full_description: string;
  note_private: string | null;
  warning_info: string;
  promotion_info: string;
  manufacturers: string;
  vendors: string;
  attach_files: string | null;
  product_id: number | null;
  season_custom_field1: string;
  season_custom_field2: string;
  season_custom_field3: string;
  season_custom_field4: string;
  season_custom_field5: string | null;
  block_id: number | null;
  farm_id: number | null;
  amount: number | null;
  area: number | null;
  count_temp: number | null;
  temp_from: number | null;
  temp_to: number | null;
}

export interface DiaryTasksTable extends TenantOwned {
  name: string;
  start_at: number | null;
  end_at: number | null;
  description: string;
  images: string;
  location: string;
  category_task_id: number | null;
  assigned_to: number | null;
  season_id: number | null;
  user_id: number;
  amount: number | null;
  done_at: number | null;
  done_by: number | null;
}

export interface DiaryTaskSubcategoriesTable {
  tenant_id: number;
  task_id: number;
  sub_cate_id: number;
}

export interface ResourceTables {
  farms: FarmsTable;
  blocks: BlocksTable;
  zones: ZonesTable;
  parcels: ParcelsTable;
  crop_types: CropTypesTable;
  product_categories: ProductCategoriesTable;
  crops: CropsTable;
  diary_categories: DiaryCategoriesTable;
  diary_subcategories: DiarySubcategoriesTable;
  season_templates: SeasonTemplatesTable;
  seasons: SeasonsTable;
  diary_tasks: DiaryTasksTable;
  diary_task_subcategories: DiaryTaskSubcategoriesTable;
}
