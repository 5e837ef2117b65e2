// Change an endpoint's address, events, description, headers or filters.
import { useNavigate, useParams } from '@tanstack/react-router';
import { useEffect } from 'react';
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
  const { refetch } = endpoint;
  useEffect(() => {
    void refetch();
  }, [refetch]);
  // The form starts from the endpoint as it is now, never from an older copy in the cache: a filter
  // or header set elsewhere since must be kept on save, so it must be loaded first.
  if (!endpoint.data || !(endpoint.isFetchedAfterMount || endpoint.isError)) {
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
