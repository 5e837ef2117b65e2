// Tasks as a list, filtered by season, stage, person, status and dates. The filters live in the
// page's address, so the list can be bookmarked and the form goes back to it.
import { Link } from '@tanstack/react-router';
import { useTexts } from '../../app/texts';
import { Empty, ErrorState, Loading } from '../../ui/States';
import {
  TASK_LIMIT,
  type Task,
  type TaskQuery,
  usePeople,
  useSeasonChoices,
  useStages,
  useTasks,
} from './api';
import type { DiarySearch } from './nav';
import { personName, plainDescription, stageOf, TaskActions, TaskStatus, TaskWhen } from './TaskParts';
import { texts } from './texts';
import { addDays, fromDayKey, toApi } from './time';

function queryOf(search: DiarySearch): TaskQuery {
  const query: TaskQuery = {};
  if (search.season) query.season_id = search.season;
  if (search.stage) query.category_task_id = search.stage;
  if (search.person) query.assigned_to = search.person;
  if (search.status) query.done = search.status === 'done';
  const from = search.from ? fromDayKey(search.from) : null;
  const to = search.to ? fromDayKey(search.to) : null;
  // Days of the farm's calendar (the browser's zone), sent as moments.
  if (from) query.from_date = toApi(from);
  if (to) query.to_date = toApi(new Date(addDays(to, 1).getTime() - 1000));
  return query;
}

/** The list reads like a diary: the latest work first. */
function byStartNewestFirst(tasks: Task[]): Task[] {
  return [...tasks].sort((a, b) => b.start.localeCompare(a.start) || b.id - a.id);
}

interface TaskListProps {
  search: DiarySearch;
  onSearch: (search: DiarySearch) => void;
  onDelete: (task: Task) => void;
}

export function TaskList({ search, onSearch, onDelete }: TaskListProps) {
  const { t, plural } = useTexts(texts);
  const tasks = useTasks(queryOf(search));
  const filtered = ['season', 'stage', 'person', 'status', 'from', 'to'].some(
    (key) => search[key as keyof DiarySearch] !== undefined,
  );

  return (
    <section className="task-list" aria-labelledby="filter-title">
      <Filters search={search} onSearch={onSearch} />
      <p className="result-count" role="status">
        {tasks.data ? plural('filter.count', tasks.data.length) : ''}
      </p>
      {tasks.isPending && <Loading label={t('diary.loading')} />}
      {tasks.isError && <ErrorState error={tasks.error} onRetry={() => void tasks.refetch()} />}
      {tasks.data?.length === 0 && (
        <Empty title={t(filtered ? 'filter.empty_title' : 'week.empty_title')}>
          <p>{t(filtered ? 'filter.empty_body' : 'week.empty_owner')}</p>
        </Empty>
      )}
      {tasks.data && tasks.data.length >= TASK_LIMIT && (
        <p className="notice notice-warning">{t('diary.too_many', { n: TASK_LIMIT })}</p>
      )}
      {tasks.data && tasks.data.length > 0 && (
        <table className="data-table tasks-table" aria-busy={tasks.isFetching}>
          <caption className="visually-hidden">{t('list.label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.task')}</th>
              <th scope="col">{t('col.when')}</th>
              <th scope="col">{t('col.stage')}</th>
              <th scope="col">{t('col.season')}</th>
              <th scope="col">{t('col.person')}</th>
              <th scope="col">{t('col.status')}</th>
              <th scope="col">{t('col.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {byStartNewestFirst(tasks.data).map((task) => (
              <TaskRow key={task.id} task={task} onDelete={onDelete} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function TaskRow({ task, onDelete }: { task: Task; onDelete: (task: Task) => void }) {
  const { t } = useTexts(texts);
  const description = plainDescription(task);
  const state = task.done_at ? 'is-done' : task.overdue ? 'is-overdue' : undefined;
  return (
    <tr className={state} data-task-id={task.id}>
      <th scope="row" data-label={t('col.task')}>
        <Link className="task-link" to="/diary/$id/edit" params={{ id: String(task.id) }}>
          {task.name}
        </Link>
        {description && <span className="task-snippet">{description}</span>}
      </th>
      <td data-label={t('col.when')}>
        <TaskWhen task={task} />
      </td>
      <td data-label={t('col.stage')}>
        {stageOf(task) ?? <span className="muted">{t('task.no_stage')}</span>}
      </td>
      <td data-label={t('col.season')}>
        {task.season?.name ?? <span className="muted">{t('task.no_season')}</span>}
      </td>
      <td data-label={t('col.person')}>
        {task.assigned ? personName(task.assigned) : <span className="muted">{t('task.nobody')}</span>}
      </td>
      <td data-label={t('col.status')}>
        <TaskStatus task={task} />
      </td>
      <td data-label={t('col.actions')} className="row-actions">
        <TaskActions task={task} onDelete={onDelete} compact />
      </td>
    </tr>
  );
}

function Filters({ search, onSearch }: { search: DiarySearch; onSearch: (search: DiarySearch) => void }) {
  const { t } = useTexts(texts);
  const seasons = useSeasonChoices();
  const stages = useStages();
  const people = usePeople({ enabled: true });
  const set = (change: Partial<DiarySearch>) => {
    const next: DiarySearch = { ...search, ...change };
    for (const key of Object.keys(next) as (keyof DiarySearch)[]) {
      if (next[key] === undefined || next[key] === '') delete next[key];
    }
    onSearch(next);
  };
  const id = (value: string) => (value === '' ? undefined : Number(value));

  return (
    <form
      className="filters settings"
      aria-labelledby="filter-title"
      onSubmit={(event) => event.preventDefault()}
    >
      <h2 id="filter-title">{t('filter.title')}</h2>
      <div className="filter-grid">
        <div className="field">
          <label htmlFor="filter-season">{t('filter.season')}</label>
          <select
            id="filter-season"
            value={search.season ?? ''}
            onChange={(event) => set({ season: id(event.target.value) })}
          >
            <option value="">{t('filter.any_season')}</option>
            {seasons.data?.map((season) => (
              <option key={season.id} value={season.id}>
                {season.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-stage">{t('filter.stage')}</label>
          <select
            id="filter-stage"
            value={search.stage ?? ''}
            onChange={(event) => set({ stage: id(event.target.value) })}
          >
            <option value="">{t('filter.any_stage')}</option>
            {stages.data?.map((stage) => (
              <option key={stage.id} value={stage.id}>
                {stage.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-person">{t('filter.person')}</label>
          <select
            id="filter-person"
            value={search.person ?? ''}
            onChange={(event) => set({ person: id(event.target.value) })}
          >
            <option value="">{t('filter.anyone')}</option>
            {people.data?.map((person) => (
              <option key={person.id} value={person.id}>
                {personName(person)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-status">{t('filter.status')}</label>
          <select
            id="filter-status"
            value={search.status ?? ''}
            onChange={(event) =>
              set({ status: event.target.value === '' ? undefined : (event.target.value as 'open' | 'done') })
            }
          >
            <option value="">{t('filter.all')}</option>
            <option value="open">{t('filter.open')}</option>
            <option value="done">{t('filter.done')}</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-from">{t('filter.from')}</label>
          <input
            id="filter-from"
            type="date"
            value={search.from ?? ''}
            onChange={(event) => set({ from: event.target.value || undefined })}
          />
        </div>
        <div className="field">
          <label htmlFor="filter-to">{t('filter.to')}</label>
          <input
            id="filter-to"
            type="date"
            value={search.to ?? ''}
            min={search.from}
            onChange={(event) => set({ to: event.target.value || undefined })}
          />
        </div>
      </div>
      <button type="button" className="button secondary" onClick={() => onSearch({ view: 'list' })}>
        {t('filter.clear')}
      </button>
    </form>
  );
}
