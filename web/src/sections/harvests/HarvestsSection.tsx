// The Harvests section (everyone; staff record batches, owners confirm them): the batches and
// totals, and the form to record a batch.
import { Outlet } from '@tanstack/react-router';
import './harvests.css';

export default function HarvestsSection() {
  return <Outlet />;
}
