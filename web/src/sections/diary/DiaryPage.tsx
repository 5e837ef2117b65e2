// The Diary page. Owners plan: a week view (seven days; a day-by-day list on a phone) and a list
// with filters (season, stage, person, status, dates), both with add, edit and delete. Staff see
// their own tasks of today and this week and mark them done.
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { PageHeading } from '../../ui/PageHeading';
import { type Task, useDeleteTask } from './api';
import { MyTasks } from './MyTasks';
import { type DiarySearch, readDiarySearch, rememberDiarySearch } from './nav';
import { TaskList } from './TaskList';
import { useTaskRights } from './TaskParts';
import { texts } from './texts';
import { WeekView } from './WeekView';

export default function DiaryPage() {
  const { t } = useTexts(texts);
  const { owner } = useTaskRights();
  const search = readDiarySearch(useSearch({ strict: false }) as Record<string, unknown>);
  const navigate = useNavigate();
  const remove = useDeleteTask();
  const announce = useAnnounce();
  const [deleting, setDeleting] = useState<Task | null>(null);
  const view = search.view ?? 'week';
  const searchKey = JSON.stringify(search);

  // The form goes back to the same view, week and filters.
  useEffect(() => rememberDiarySearch(JSON.parse(searchKey) as DiarySearch), [searchKey]);

  const setSearch = (next: DiarySearch) =>
    void navigate({ to: '/diary', search: next as Record<string, unknown>, replace: true });

  function confirmDelete() {
    if (!deleting) return;
    const { id, name } = deleting;
    remove.mutate(id, {
      onSuccess: () => {
        announce(t('task.deleted', { name }));
        setDeleting(null);
      },
      onError: (err) => {
        announce(err.message, 'error');
        setDeleting(null);
      },
    });
  }

  return (
    <section className="page diary-page">
      <div className="page-title">
        <PageHeading>{t('diary.title')}</PageHeading>
        {owner && (
          <div className="title-actions">
            <Link className="button secondary" to="/diary/stages">
              {t('stages.link')}
            </Link>
            <Link className="button primary" to="/diary/new">
              {t('diary.add')}
            </Link>
          </div>
        )}
      </div>
      <p className="lead">{t(owner ? 'diary.intro_owner' : 'diary.intro_staff')}</p>

      {owner ? (
        <>
          <fieldset className="view-switch">
            <legend className="visually-hidden">{t('diary.views')}</legend>
            {(['week', 'list'] as const).map((option) => (
              <button
                key={option}
                type="button"
                className={`button ${view === option ? 'primary' : 'secondary'}`}
                aria-pressed={view === option}
                onClick={() => setSearch({ ...search, view: option })}
              >
                {t(option === 'week' ? 'diary.view_week' : 'diary.view_list')}
              </button>
            ))}
          </fieldset>
          {view === 'week' ? (
            <WeekView week={search.week} onWeek={(week) => setSearch({ ...search, week })} />
          ) : (
            <TaskList
              search={search}
              onSearch={(next) => setSearch({ ...next, view: 'list' })}
              onDelete={setDeleting}
            />
          )}
        </>
      ) : (
        <MyTasks />
      )}

      {deleting && (
        <ConfirmDialog
          title={t('task.delete_title', { name: deleting.name })}
          confirmLabel={t('task.delete')}
          tone="danger"
          busy={remove.isPending}
          onConfirm={confirmDelete}
          onCancel={() => setDeleting(null)}
        >
          <p>{t('task.delete_body')}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
