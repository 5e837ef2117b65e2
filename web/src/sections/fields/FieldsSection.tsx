// The Fields section: the farms, a farm's page with its blocks, zones and parcels, and the forms
// that add and change them (owners only). Its stylesheet comes with its code. The list of farms,
// the page every visit starts on, comes in the same file as the section (sections.ts).
import { Outlet } from '@tanstack/react-router';
import './fields.css';

export { default as FarmList } from './FarmList';

export default function FieldsSection() {
  return <Outlet />;
}
