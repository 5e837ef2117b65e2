// Add a task (owners): the form, then back to the diary where it was.
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { PageHeading } from '../../ui/PageHeading';
import { lastDiarySearch } from './nav';
import { TaskForm } from './TaskForm';
import { useTaskRights } from './TaskParts';
import { texts } from './texts';
import { fromDayKey } from './time';

export default function TaskCreatePage() {
  const { t } = useTexts(texts);
  const { owner } = useTaskRights();
  const announce = useAnnounce();
  const navigate = useNavigate();
  const { day } = useSearch({ strict: false }) as { day?: unknown };
  if (!owner) {
    // Staff are not offered this page; a link followed by hand says why instead of a form.
    return (
      <section className="page narrow">
        <PageHeading>{t('form.add_title')}</PageHeading>
        <p className="notice notice-info">{t('form.not_yours')}</p>
      </section>
    );
  }
  return (
    <TaskForm
      task={null}
      start={typeof day === 'string' ? (fromDayKey(day) ?? undefined) : undefined}
      onDone={(task) => {
        announce(t('form.added', { name: task.name }));
        void navigate({ to: '/diary', search: lastDiarySearch() as Record<string, unknown> });
      }}
    />
  );
}
