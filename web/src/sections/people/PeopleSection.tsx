// The People section (owners only; the shell tells staff so without asking the API): the list,
// adding a person, and a person's page (role, new password, removal).
import { Outlet } from '@tanstack/react-router';
import './people.css';

export default function PeopleSection() {
  return <Outlet />;
}
