// The Sensors section: the overview (alerts, devices, alert rules), a device's page with its
// charts, and the owner's forms for devices and rules. Its stylesheet comes with its code.
import { Outlet } from '@tanstack/react-router';
import './sensors.css';

export default function SensorsSection() {
  return (
    <div className="sensors">
      <Outlet />
    </div>
  );
}
