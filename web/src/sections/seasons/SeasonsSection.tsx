// The Seasons section: the list of seasons with the season templates, and the start/edit form.
import { Outlet } from '@tanstack/react-router';
import './seasons.css';

export default function SeasonsSection() {
  return <Outlet />;
}
