// A staff member's own tasks: what is still open from before, today's, and the rest of this week.
import { useTexts } from '../../app/texts';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { type Task, useTasks } from './api';
import { TaskCard, useTaskRights } from './TaskParts';
import { texts } from './texts';
import { addDays, dayKey, formatLongDay, fromApi, startOfDay, startOfWeek, toApi } from './time';

export function MyTasks() {
  const { t, language } = useTexts(texts);
  const { me } = useTaskRights();
  const now = new Date();
  const monday = startOfWeek(now);
  const nextMonday = addDays(monday, 7);
  const today = startOfDay(now);
  const week = useTasks({
    assigned_to: me,
    from_date: toApi(monday),
    to_date: toApi(new Date(nextMonday.getTime() - 1000)),
  });
  // Open tasks that began before this week and still wait.
  const earlier = useTasks({
    assigned_to: me,
    done: false,
    to_date: toApi(new Date(monday.getTime() - 1000)),
  });
  const queries = [week, earlier];
  const failed = queries.find((query) => query.isError);

  if (queries.some((query) => query.isPending)) return <Loading label={t('diary.loading')} />;
  if (failed)
    return <ErrorState error={failed.error} onRetry={() => queries.forEach((q) => void q.refetch())} />;

  const todayKey = dayKey(today);
  const seen = new Set<number>();
  const backlog: Task[] = [];
  const todays: Task[] = [];
  const later: Task[] = [];
  for (const task of [...(earlier.data ?? []), ...(week.data ?? [])]) {
    if (seen.has(task.id)) continue;
    seen.add(task.id);
    const start = fromApi(task.start) ?? today;
    const end = fromApi(task.end);
    const key = dayKey(start);
    if (key === todayKey || (start < today && end !== null && end >= today)) todays.push(task);
    else if (start > today) later.push(task);
    else if (!task.done_at) backlog.push(task);
  }
  const byStart = (a: Task, b: Task) => a.start.localeCompare(b.start);

  if (backlog.length + todays.length + later.length === 0) {
    return (
      <Empty title={t('mine.empty_title')}>
        <p>{t('mine.empty_body')}</p>
      </Empty>
    );
  }

  return (
    <div className="my-tasks" aria-busy={week.isFetching || earlier.isFetching}>
      {backlog.length > 0 && (
        <section aria-labelledby="mine-earlier" className="task-group">
          <h2 id="mine-earlier">{t('mine.earlier')}</h2>
          <TaskCards tasks={backlog.sort(byStart)} />
        </section>
      )}
      <section aria-labelledby="mine-today" className="task-group">
        <h2 id="mine-today">
          {t('mine.today')} <span className="group-date">{formatLongDay(today, language)}</span>
        </h2>
        {todays.length === 0 ? (
          <p className="muted">{t('mine.today_empty')}</p>
        ) : (
          <TaskCards tasks={todays.sort(byStart)} />
        )}
      </section>
      <section aria-labelledby="mine-week" className="task-group">
        <h2 id="mine-week">{t('mine.week')}</h2>
        {later.length === 0 ? (
          <p className="muted">{t('mine.week_empty')}</p>
        ) : (
          <TaskCards tasks={later.sort(byStart)} />
        )}
      </section>
    </div>
  );
}

function TaskCards({ tasks }: { tasks: Task[] }) {
  return (
    <ul className="task-cards">
      {tasks.map((task) => (
        <li key={task.id}>
          <TaskCard task={task} showPerson={false} />
        </li>
      ))}
    </ul>
  );
}
