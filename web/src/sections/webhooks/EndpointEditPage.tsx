// Change an endpoint's address, events or description.
import { useNavigate, useParams } from '@tanstack/react-router';
import { useAnnounce } from '../../app/announce';
import { useI18n } from '../../app/i18n';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import { useEndpoint } from './api';
import { EndpointForm } from './EndpointForm';

export default function EndpointEditPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const { t } = useI18n();
  const announce = useAnnounce();
  const navigate = useNavigate();
  const { endpoint } = useEndpoint(id, { withDeliveries: false });
  if (!endpoint.data) {
    return (
      <section className="page narrow">
        <PageHeading>{t('form.edit_title')}</PageHeading>
        {endpoint.isError ? (
          <ErrorState
            error={endpoint.error}
            notFound={t('error.not_found')}
            onRetry={() => void endpoint.refetch()}
          />
        ) : (
          <Loading label={t('detail.loading')} />
        )}
      </section>
    );
  }
  return (
    <EndpointForm
      key={endpoint.data.id}
      endpoint={endpoint.data}
      onDone={(saved) => {
        announce(t('form.saved'));
        void navigate({ to: '/webhooks/$id', params: { id: saved.id } });
      }}
    />
  );
}
