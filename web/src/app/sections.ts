// The farm app's sections: one row each. The router makes a route of every row, the navigation
// offers the rows the signed-in person may use (owner-only rows are never offered to staff), and
// each page is loaded only when it is first opened (its own JS file).
import type { ComponentType } from 'react';
import type { IconName } from './icons';
import type { Role } from './session';

/** A page module: its default export is the page (or a section layout with an <Outlet/>). */
export type PageModule = () => Promise<{ default: ComponentType }>;

export interface Section {
  id: string;
  /** Under /manage: '/' is Today. */
  path: string;
  label: { en: string; vi: string };
  icon: IconName;
  /** Who is offered the section. */
  who: 'all' | 'owner';
  /** In the phone's bottom bar; the others are under "More". */
  primary: boolean;
  page: PageModule;
  /** Pages inside the section, relative to its path; its page then renders them in an <Outlet/>. */
  children?: { path: string; page: PageModule }[];
}

export const SECTIONS: readonly Section[] = [
  {
    id: 'today',
    path: '/',
    label: { en: 'Today', vi: 'Hôm nay' },
    icon: 'today',
    who: 'all',
    primary: true,
    page: () => import('../sections/today/TodayPage'),
  },
  {
    id: 'fields',
    path: '/fields',
    label: { en: 'Fields', vi: 'Khu đất' },
    icon: 'fields',
    who: 'all',
    primary: false,
    page: () => import('../sections/fields/FieldsSection'),
    children: [
      {
        path: '/',
        page: () => import('../sections/fields/FieldsSection').then((m) => ({ default: m.FarmList })),
      },
      { path: '/new', page: () => import('../sections/fields/FarmFormPage') },
      { path: '/$farmId', page: () => import('../sections/fields/FarmPage') },
      { path: '/$farmId/edit', page: () => import('../sections/fields/FarmFormPage') },
      { path: '/$farmId/$kind/new', page: () => import('../sections/fields/PlaceFormPage') },
      { path: '/$farmId/$kind/$id', page: () => import('../sections/fields/PlaceFormPage') },
    ],
  },
  {
    id: 'crops',
    path: '/crops',
    label: { en: 'Crops', vi: 'Cây trồng' },
    icon: 'crops',
    who: 'all',
    primary: false,
    page: () => import('../sections/crops/CropsSection'),
    children: [
      { path: '/', page: () => import('../sections/crops/CropList') },
      { path: '/new', page: () => import('../sections/crops/CropForm') },
      { path: '/$id/edit', page: () => import('../sections/crops/CropForm') },
      { path: '/types', page: () => import('../sections/crops/CropTypeList') },
      { path: '/types/new', page: () => import('../sections/crops/CropTypeForm') },
      { path: '/types/$id/edit', page: () => import('../sections/crops/CropTypeForm') },
      { path: '/categories', page: () => import('../sections/crops/CategoryList') },
      { path: '/categories/new', page: () => import('../sections/crops/CategoryForm') },
      { path: '/categories/$id/edit', page: () => import('../sections/crops/CategoryForm') },
    ],
  },
  {
    id: 'seasons',
    path: '/seasons',
    label: { en: 'Seasons', vi: 'Mùa vụ' },
    icon: 'seasons',
    who: 'all',
    primary: false,
    page: () => import('../sections/seasons/SeasonsSection'),
    children: [
      { path: '/', page: () => import('../sections/seasons/SeasonList') },
      { path: '/new', page: () => import('../sections/seasons/SeasonCreatePage') },
      { path: '/$id/edit', page: () => import('../sections/seasons/SeasonEditPage') },
    ],
  },
  {
    id: 'diary',
    path: '/diary',
    label: { en: 'Diary', vi: 'Nhật ký' },
    icon: 'diary',
    who: 'all',
    primary: true,
    page: () => import('../sections/diary/DiarySection'),
    children: [
      { path: '/', page: () => import('../sections/diary/DiaryPage') },
      { path: '/new', page: () => import('../sections/diary/TaskCreatePage') },
      { path: '/stages', page: () => import('../sections/diary/StagesPage') },
      { path: '/$id/edit', page: () => import('../sections/diary/TaskEditPage') },
    ],
  },
  {
    id: 'sensors',
    path: '/sensors',
    label: { en: 'Sensors', vi: 'Cảm biến' },
    icon: 'sensors',
    who: 'all',
    primary: true,
    page: () => import('../sections/sensors/SensorsSection'),
    children: [
      { path: '/', page: () => import('../sections/sensors/SensorsHome') },
      { path: '/devices/new', page: () => import('../sections/sensors/DeviceFormPage') },
      { path: '/devices/$id', page: () => import('../sections/sensors/DevicePage') },
      { path: '/devices/$id/edit', page: () => import('../sections/sensors/DeviceFormPage') },
      { path: '/rules/new', page: () => import('../sections/sensors/RuleFormPage') },
      { path: '/rules/$id/edit', page: () => import('../sections/sensors/RuleFormPage') },
      { path: '/connect', page: () => import('../sections/sensors/ConnectPage') },
      { path: '/mqtt/new', page: () => import('../sections/sensors/MqttFormPage') },
      { path: '/mqtt/$id/edit', page: () => import('../sections/sensors/MqttFormPage') },
      { path: '/new-devices', page: () => import('../sections/sensors/NewDevicesPage') },
      { path: '/new-devices/$devEui', page: () => import('../sections/sensors/AdoptPage') },
      { path: '/email-alerts', page: () => import('../sections/sensors/EmailAlertsPage') },
    ],
  },
  {
    id: 'harvests',
    path: '/harvests',
    label: { en: 'Harvests', vi: 'Thu hoạch' },
    icon: 'harvests',
    who: 'all',
    primary: true,
    page: () => import('../sections/harvests/HarvestsSection'),
    children: [
      { path: '/', page: () => import('../sections/harvests/HarvestList') },
      { path: '/new', page: () => import('../sections/harvests/DeclarePage') },
    ],
  },
  {
    id: 'webhooks',
    path: '/webhooks',
    label: { en: 'Webhooks', vi: 'Webhook' },
    icon: 'webhooks',
    who: 'owner',
    primary: false,
    page: () => import('../sections/webhooks/WebhooksSection'),
    children: [
      { path: '/', page: () => import('../sections/webhooks/WebhookList') },
      { path: '/new', page: () => import('../sections/webhooks/EndpointCreatePage') },
      { path: '/events', page: () => import('../sections/webhooks/EventCatalogue') },
      { path: '/$id', page: () => import('../sections/webhooks/EndpointDetail') },
      { path: '/$id/edit', page: () => import('../sections/webhooks/EndpointEditPage') },
    ],
  },
  {
    id: 'people',
    path: '/people',
    label: { en: 'People', vi: 'Nhân sự' },
    icon: 'people',
    who: 'owner',
    primary: false,
    page: () => import('../sections/people/PeopleSection'),
    children: [
      { path: '/', page: () => import('../sections/people/PeopleList') },
      { path: '/new', page: () => import('../sections/people/AddPersonPage') },
      { path: '/$id', page: () => import('../sections/people/PersonPage') },
      { path: '/keys', page: () => import('../sections/people/KeysPage') },
      { path: '/keys/new', page: () => import('../sections/people/AddKeyPage') },
    ],
  },
  {
    id: 'account',
    path: '/account',
    label: { en: 'Account', vi: 'Tài khoản' },
    icon: 'account',
    who: 'all',
    primary: false,
    page: () => import('../sections/account/AccountPage'),
  },
];

export function mayUse(section: Section, role: Role): boolean {
  return section.who === 'all' || role === 'owner';
}

/** The section a path under /manage belongs to (Today for '/'). */
export function sectionOf(pathname: string): Section | undefined {
  const path = pathname.replace(/^\/manage/, '') || '/';
  return (
    SECTIONS.find((s) => s.path !== '/' && (path === s.path || path.startsWith(`${s.path}/`))) ??
    (path === '/' ? SECTIONS[0] : undefined)
  );
}
