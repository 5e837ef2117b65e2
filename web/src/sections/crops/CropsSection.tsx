// The Crops section: crops and livestock, varieties and product groups, each a list with its add
// and edit forms (owners), rendered in the section's outlet.
import { Outlet } from '@tanstack/react-router';

export default function CropsSection() {
  return <Outlet />;
}
