// Add an endpoint; its page then shows the signing secret, once.
import { useNavigate } from '@tanstack/react-router';
import { EndpointForm } from './EndpointForm';
import { useRevealedSecret } from './WebhooksSection';

export default function EndpointCreatePage() {
  const navigate = useNavigate();
  const { reveal } = useRevealedSecret();
  return (
    <EndpointForm
      endpoint={null}
      onDone={(endpoint) => {
        if (endpoint.secret) reveal({ endpointId: endpoint.id, secret: endpoint.secret, reason: 'created' });
        void navigate({ to: '/webhooks/$id', params: { id: endpoint.id } });
      }}
    />
  );
}
