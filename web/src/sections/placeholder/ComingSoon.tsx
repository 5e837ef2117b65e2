// The page of a section that is not built yet: its name and "coming soon", in both languages.
import { useRouterState } from '@tanstack/react-router';
import { useI18n } from '../../app/i18n';
import { sectionOf } from '../../app/sections';
import { PageHeading } from '../../ui/PageHeading';

export default function ComingSoon() {
  const { t, language } = useI18n();
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  const section = sectionOf(pathname);
  return (
    <section className="page narrow">
      <PageHeading>{section?.label[language] ?? t('app.name')}</PageHeading>
      {section?.id === 'today' && <p className="lead">{t('today.intro')}</p>}
      <p className="notice notice-info coming-soon">{t('soon.body')}</p>
    </section>
  );
}
