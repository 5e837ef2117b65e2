// The Fields section: the farms, a farm's page with its blocks, zones and parcels, and the forms
// that add and change them (owners only). Its stylesheet comes with its code.
import { Outlet } from '@tanstack/react-router';
import './fields.css';

export default function FieldsSection() {
  return <Outlet />;
}
