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

const comingSoon: PageModule = () => import('../sections/placeholder/ComingSoon');

export const SECTIONS: readonly Section[] = [
  {
    id: 'today',
    path: '/',
    label: { en: 'Today', vi: 'Hôm nay' },
    icon: 'today',
    who: 'all',
    primary: true,
    page: comingSoon,
  },
  {
    id: 'fields',
    path: '/fields',
    label: { en: 'Fields', vi: 'Khu đất' },
    icon: 'fields',
    who: 'all',
    primary: false,
    page: comingSoon,
  },
  {
    id: 'crops',
    path: '/crops',
    label: { en: 'Crops', vi: 'Cây trồng' },
    icon: 'crops',
    who: 'all',
    primary: false,
    page: comingSoon,
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
    page: comingSoon,
  },
  {
    id: 'harvests',
    path: '/harvests',
    label: { en: 'Harvests', vi: 'Thu hoạch' },
    icon: 'harvests',
    who: 'all',
    primary: false,
    page: comingSoon,
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
    page: comingSoon,
  },
  {
    id: 'account',
    path: '/account',
    label: { en: 'Account', vi: 'Tài khoản' },
    icon: 'account',
    who: 'all',
    primary: false,
    page: comingSoon,
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
