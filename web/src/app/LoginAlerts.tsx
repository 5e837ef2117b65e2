// Owners see it when someone keeps failing to sign in to one of the farm's accounts: who, how
// often, from how many addresses, and whether sign-ins to it are paused for everyone.
import { useQuery } from '@tanstack/react-query';
import { many, unwrap } from '../api/client';
import { formatTime } from '../ui/format';
import { useI18n } from './i18n';
import { useSession } from './session';

interface LoginAlert {
  username: string;
  failed_attempts: number;
  addresses: number;
  last_failed_at: string;
  locked_until: string | null;
}

export function LoginAlerts() {
  const { language, t, plural } = useI18n();
  const { api } = useSession();
  // The notice is extra: a failure to load it must not disturb the page (no error shown).
  const { data: alerts = [] } = useQuery({
    queryKey: ['login-alerts'],
    queryFn: async () => many<LoginAlert>(await unwrap(api.GET('/api/auth/login-alerts'))),
    refetchInterval: 60_000,
  });

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
