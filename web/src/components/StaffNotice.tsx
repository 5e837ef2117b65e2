import { useI18n } from '../i18n';
import { useSession } from '../session';
import { PageHeading } from './PageHeading';

export function StaffNotice() {
  const { t } = useI18n();
  const { session } = useSession();
  return (
    <section className="page narrow">
      <PageHeading>{t('webhooks.title')}</PageHeading>
      <div className="notice notice-info">
        <h2>{t('staff.title')}</h2>
        <p>
          {t('staff.body', {
            name: session.user.name || session.user.username,
            tenant: session.tenant.name,
          })}
        </p>
      </div>
    </section>
  );
}
