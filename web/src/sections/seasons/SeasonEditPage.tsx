// Change a season (owners): its form, filled in with the season as it is now.
import { useNavigate, useParams } from '@tanstack/react-router';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import { useSeason } from './api';
import { SeasonForm } from './SeasonForm';
import { texts } from './texts';

export default function SeasonEditPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const season = useSeason(Number(id));
  if (!season.data) {
    return (
      <section className="page narrow">
        <PageHeading>{t('form.edit_title')}</PageHeading>
        {season.isError ? (
          <ErrorState
            error={season.error}
            notFound={t('form.not_found')}
            onRetry={() => void season.refetch()}
          />
        ) : (
          <Loading label={t('form.loading')} />
        )}
      </section>
    );
  }
  return (
    <SeasonForm
      key={season.data.id}
      season={season.data}
      onDone={(saved) => {
        announce(t('form.saved_season', { name: saved.name }));
        void navigate({ to: '/seasons' });
      }}
    />
  );
}
