// The Sensors section: the overview (alerts, devices, alert rules), a device's page with its
// charts, and the owner's forms for devices and rules. Its stylesheet comes with its code. The
// chosen chart period is kept here, so going from one device to the next keeps "Last 7 days".
import { Outlet } from '@tanstack/react-router';
import { createContext, useContext, useMemo, useState } from 'react';
import type { PeriodId } from './api';
import './sensors.css';

interface PeriodState {
  period: PeriodId;
  setPeriod: (period: PeriodId) => void;
}

const PeriodContext = createContext<PeriodState>({ period: '24h', setPeriod: () => {} });

/** The chart period chosen in this visit to the section. */
export function useChartPeriod(): PeriodState {
  return useContext(PeriodContext);
}

export default function SensorsSection() {
  const [period, setPeriod] = useState<PeriodId>('24h');
  const value = useMemo(() => ({ period, setPeriod }), [period]);
  return (
    <PeriodContext.Provider value={value}>
      <div className="sensors">
        <Outlet />
      </div>
    </PeriodContext.Provider>
  );
}
