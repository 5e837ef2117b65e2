// Start a season: the form, then back to the list, where the new season shows with its code.
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { SeasonForm } from './SeasonForm';
import { texts } from './texts';

export default function SeasonCreatePage() {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const search = useSearch({ strict: false }) as { template?: unknown };
  const templateId = Number(search.template);
  return (
    <SeasonForm
      season={null}
      templateId={Number.isInteger(templateId) && templateId > 0 ? templateId : undefined}
      onDone={(season) => {
        announce(t('form.started', { name: season.name, code: season.code }));
        void navigate({ to: '/seasons', search: { started: season.id } });
      }}
    />
  );
}
