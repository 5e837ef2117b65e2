// Seven days of tasks, Monday first: columns on a wide screen, one day after the other on a phone.
// A task is placed on the day it starts (or on Monday when it started before the week).
import { Link } from '@tanstack/react-router';
import { useRef } from 'react';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { TASK_LIMIT, type Task, useTasks } from './api';
import { personName, stageOf, TaskStatus, TaskWhen } from './TaskParts';
import { texts } from './texts';
import {
  addDays,
  dayKey,
  formatDayName,
  formatLongDay,
  fromApi,
  fromDayKey,
  startOfWeek,
  toApi,
} from './time';

export function WeekView({ week, onWeek }: { week: string | undefined; onWeek: (week: string) => void }) {
  const { t, plural, language } = useTexts(texts);
  const today = new Date();
  const monday = startOfWeek((week && fromDayKey(week)) || today);
  const next = addDays(monday, 7);
  const tasks = useTasks({
    from_date: toApi(monday),
    to_date: toApi(new Date(next.getTime() - 1000)),
  });
  const days = Array.from({ length: 7 }, (_, i) => addDays(monday, i));
  const byDay = new Map<string, Task[]>(days.map((day) => [dayKey(day), []]));
  for (const task of tasks.data ?? []) {
    const start = fromApi(task.start);
    const placed = !start || start < monday ? monday : start;
    byDay.get(dayKey(placed))?.push(task);
  }
  for (const list of byDay.values()) list.sort((a, b) => a.start.localeCompare(b.start));
  const thisWeek = dayKey(startOfWeek(today)) === dayKey(monday);
  const announce = useAnnounce();
  const label = (from: Date) =>
    t('week.label', { from: formatDayName(from, language), to: formatDayName(addDays(from, 6), language) });
  const headingRef = useRef<HTMLHeadingElement>(null);
  // The new week is said aloud; the buttons keep the focus, except "This week", which goes away
  // once there: the week's heading takes it then.
  const goTo = (from: Date, { focusHeading = false } = {}) => {
    onWeek(dayKey(from));
    announce(label(from));
    if (focusHeading) requestAnimationFrame(() => headingRef.current?.focus());
  };

  return (
    <section className="week" aria-labelledby="week-title" aria-busy={tasks.isFetching}>
      <div className="week-head">
        <h2 id="week-title" ref={headingRef} tabIndex={-1}>
          {label(monday)}
        </h2>
        <div className="week-nav">
          <button type="button" className="button secondary" onClick={() => goTo(addDays(monday, -7))}>
            <span aria-hidden="true">←</span> {t('week.previous')}
          </button>
          {!thisWeek && (
            <button
              type="button"
              className="button secondary"
              onClick={() => goTo(startOfWeek(today), { focusHeading: true })}
            >
              {t('week.this')}
            </button>
          )}
          <button type="button" className="button secondary" onClick={() => goTo(next)}>
            {t('week.next')} <span aria-hidden="true">→</span>
          </button>
        </div>
      </div>
      {tasks.isPending && <Loading label={t('diary.loading')} />}
      {tasks.isError && <ErrorState error={tasks.error} onRetry={() => void tasks.refetch()} />}
      {tasks.data?.length === 0 && (
        <Empty title={t('week.empty_title')}>
          <p>{t('week.empty_owner')}</p>
        </Empty>
      )}
      {tasks.data && tasks.data.length >= TASK_LIMIT && (
        <p className="notice notice-warning">{t('diary.too_many', { n: TASK_LIMIT })}</p>
      )}
      {tasks.data && tasks.data.length > 0 && (
        <ol className="week-days">
          {days.map((day) => {
            const key = dayKey(day);
            const list = byDay.get(key) ?? [];
            const isToday = key === dayKey(today);
            return (
              <li
                key={key}
                className={`week-day${isToday ? ' is-today' : ''}${list.length === 0 ? ' is-empty' : ''}`}
              >
                <h3 className="week-day-name">
                  <span aria-hidden="true">{formatDayName(day, language)}</span>
                  <span className="visually-hidden">{formatLongDay(day, language)}</span>
                  {isToday && <span className="today-mark">{t('week.today')}</span>}
                  <span className="day-count">
                    {list.length > 0 ? plural('week.tasks', list.length) : ''}
                  </span>
                </h3>
                {list.length === 0 ? (
                  <p className="muted day-empty">{t('week.no_tasks')}</p>
                ) : (
                  <ul className="day-tasks">
                    {list.map((task) => (
                      <WeekTask key={task.id} task={task} />
                    ))}
                  </ul>
                )}
                <Link className="add-on-day" to="/diary/new" search={{ day: key }}>
                  <span aria-hidden="true">+&nbsp;</span>
                  {t('diary.add')}
                  <span className="visually-hidden">
                    {t('week.on_day', { day: formatLongDay(day, language) })}
                  </span>
                </Link>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

function WeekTask({ task }: { task: Task }) {
  const { t } = useTexts(texts);
  const state = task.done_at ? ' is-done' : task.overdue ? ' is-overdue' : '';
  return (
    <li className={`week-task${state}`} data-task-id={task.id}>
      <Link className="week-task-name" to="/diary/$id/edit" params={{ id: String(task.id) }}>
        {task.name}
      </Link>
      <TaskWhen task={task} withDay={false} />
      <span className="week-task-person">{task.assigned ? personName(task.assigned) : t('task.nobody')}</span>
      {task.category && <span className="week-task-stage">{stageOf(task)}</span>}
      <TaskStatus task={task} />
    </li>
  );
}
