// Owners see it when someone keeps failing to sign in to one of the farm's accounts: who, how
// often, from how many addresses, and whether sign-ins to it are paused for everyone.
import { useEffect, useState } from 'react';
import type { LoginAlert } from '../api';
import { useI18n } from '../i18n';
import { useSession } from '../session';
import { formatTime } from '../time';

/** How often the notice looks again while the page stays open. */
const REFRESH_MS = 60_000;

export function LoginAlerts() {
  const { language, t, plural } = useI18n();
  const { api } = useSession();
  const [alerts, setAlerts] = useState<LoginAlert[]>([]);

  useEffect(() => {
    let stopped = false;
    const load = () =>
      api
        .loginAlerts()
        .then((found) => {
          if (!stopped) setAlerts(found);
        })
        // The notice is extra: a failure to load it must not disturb the page.
        .catch(() => {});
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [api]);

  if (alerts.length === 0) return null;
  return (
    <section className="notice notice-warning login-alerts" aria-labelledby="login-alerts-title">
      <h2 id="login-alerts-title">{t('attack.title')}</h2>
      <ul>
        {alerts.map((alert) => (
          <li key={alert.username}>
            {plural('attack.line', alert.failed_attempts, {
              username: alert.username,
              from: plural('attack.from', alert.addresses),
              time: formatTime(alert.last_failed_at, language),
            })}
            {alert.locked_until && (
              <> {t('attack.locked', { time: formatTime(alert.locked_until, language) })}</>
            )}
          </li>
        ))}
      </ul>
      <p>{t('attack.advice')}</p>
    </section>
  );
}
