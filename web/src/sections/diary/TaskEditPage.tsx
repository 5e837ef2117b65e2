// Change a task: owners any task, staff their own (what they did, the end, done).
import { useNavigate, useParams } from '@tanstack/react-router';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import { useTask } from './api';
import { lastDiarySearch } from './nav';
import { TaskForm } from './TaskForm';
import { useTaskRights } from './TaskParts';
import { texts } from './texts';

export default function TaskEditPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const { t } = useTexts(texts);
  const { mayChange } = useTaskRights();
  const announce = useAnnounce();
  const navigate = useNavigate();
  const task = useTask(Number(id));
  if (!task.data || !mayChange(task.data)) {
    return (
      <section className="page narrow">
        <PageHeading>{t('form.edit_title')}</PageHeading>
        {task.data ? (
          <p className="notice notice-info">{t('form.not_yours')}</p>
        ) : task.isError ? (
          <ErrorState error={task.error} notFound={t('form.not_found')} onRetry={() => void task.refetch()} />
        ) : (
          <Loading label={t('form.loading')} />
        )}
      </section>
    );
  }
  return (
    <TaskForm
      key={task.data.id}
      task={task.data}
      onDone={(saved) => {
        announce(t('form.saved', { name: saved.name }));
        void navigate({ to: '/diary', search: lastDiarySearch() as Record<string, unknown> });
      }}
    />
  );
}
