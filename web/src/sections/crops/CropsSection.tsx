// The Crops section: crops and livestock, varieties and product groups. The lists share the
// section's heading and tabs, which stay while the tabs change; the add and edit forms are pages
// of their own.
import { Outlet, useLocation } from '@tanstack/react-router';
import { SectionHeader, type Tab } from './Parts';

export default function CropsSection() {
  const path = useLocation({ select: (location) => location.pathname.replace(/^(\/manage)?\/crops/, '') });
  if (/\/(new|edit)$/.test(path)) return <Outlet />;
  const tab: Tab = path.startsWith('/types')
    ? 'types'
    : path.startsWith('/categories')
      ? 'categories'
      : 'crops';
  return (
    <section className="page crops-page">
      <SectionHeader current={tab} />
      <Outlet />
    </section>
  );
}
