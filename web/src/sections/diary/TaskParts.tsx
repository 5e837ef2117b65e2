// The pieces every view of a task shares: its status (done, overdue, to do: said in words and with
// an icon, not by colour alone), its time, and the actions the signed-in person may take on it.
import { Link } from '@tanstack/react-router';
import { type RefObject, useRef } from 'react';
import { useAnnounce } from '../../app/announce';
import { focusPageHeading } from '../../app/focus';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { formatDate } from '../../ui/format';
import { type Task, useMarkDone } from './api';
import { texts } from './texts';
import { dayKey, formatClock, formatDayName, fromApi } from './time';

/**
 * When the task leaves the view after an action (a list of open tasks), its button goes and the
 * focus would fall to the page's body: the page's heading takes it instead. The list re-renders
 * once the refreshed answer is in, so this looks a few times, and never takes the focus back from
 * something the person moved to.
 */
function keepFocusOnPage(button: RefObject<HTMLElement | null>): void {
  const check = () => {
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (!button.current?.isConnected && lost) focusPageHeading();
  };
  for (const delay of [0, 250, 1000]) setTimeout(check, delay);
}

export function TaskStatus({ task }: { task: Task }) {
  const { t, language } = useTexts(texts);
  if (task.done_at) {
    const doneAt = fromApi(task.done_at);
    return (
      <span className="task-status status-done">
        <span aria-hidden="true">✓</span> {t('task.status_done')}
        {doneAt && (
          <span className="visually-hidden">
            {' '}
            (
            {t('task.done_at', {
              time: `${formatDate(doneAt.toISOString(), language)} ${formatClock(doneAt, language)}`,
            })}
            )
          </span>
        )}
      </span>
    );
  }
  if (task.overdue) {
    return (
      <span className="task-status status-overdue">
        <span aria-hidden="true">⚠</span> {t('task.status_overdue')}
      </span>
    );
  }
  return (
    <span className="task-status status-open">
      <span aria-hidden="true">○</span> {t('task.status_open')}
    </span>
  );
}

/** "Mon 24 Nov 07:30 – 11:00", or only the times when the day is shown already. */
export function TaskWhen({ task, withDay = true }: { task: Task; withDay?: boolean }) {
  const { language } = useTexts(texts);
  const start = fromApi(task.start);
  const end = fromApi(task.end);
  if (!start) return null;
  const startText = `${withDay ? `${formatDayName(start, language)} ` : ''}${formatClock(start, language)}`;
  let endText = '';
  if (end) {
    endText =
      dayKey(end) === dayKey(start)
        ? formatClock(end, language)
        : `${formatDayName(end, language)} ${formatClock(end, language)}`;
  }
  return (
    <span className="task-when">
      <time dateTime={start.toISOString()}>{startText}</time>
      {end && (
        <>
          {' – '}
          <time dateTime={end.toISOString()}>{endText}</time>
        </>
      )}
    </span>
  );
}

export function useTaskRights() {
  const { session } = useSession();
  const me = session?.user;
  const owner = me?.role === 'owner';
  return {
    owner,
    me: me?.id ?? 0,
    /** Owners change any task; staff only their own (done, description, end). */
    mayChange: (task: Task) => owner || (me !== undefined && task.assigned_to === me.id),
  };
}

interface TaskActionsProps {
  task: Task;
  onDelete?: (task: Task) => void;
  /** Small buttons for the narrow columns of the week. */
  compact?: boolean;
}

export function TaskActions({ task, onDelete, compact = false }: TaskActionsProps) {
  const { t } = useTexts(texts);
  const { owner, mayChange } = useTaskRights();
  const markDone = useMarkDone();
  const announce = useAnnounce();
  const buttonRef = useRef<HTMLButtonElement>(null);
  if (!mayChange(task)) return null;
  const done = task.done_at !== null;
  const busy = markDone.isPending && markDone.variables?.id === task.id;
  const size = compact ? 'button small' : 'button';

  function toggle() {
    if (busy) return;
    // The promise, not mutate()'s callbacks: those are dropped when the task leaves the view (a
    // list of open tasks), and the result must still be said and the focus kept on the page.
    markDone.mutateAsync({ id: task.id, done: !done }).then(
      (saved) => {
        announce(t(saved.done_at ? 'task.marked_done' : 'task.marked_open', { name: saved.name }));
        keepFocusOnPage(buttonRef);
      },
      (err: Error) => announce(err.message, 'error'),
    );
  }

  return (
    <div className="task-actions">
      <button
        type="button"
        ref={buttonRef}
        className={`${size} ${done ? 'secondary' : 'primary'} done-toggle`}
        aria-label={t(done ? 'task.mark_open_label' : 'task.mark_done_label', { name: task.name })}
        aria-disabled={busy || undefined}
        onClick={toggle}
      >
        {!done && <span aria-hidden="true">✓</span>}
        {t(done ? 'task.mark_open' : 'task.mark_done')}
      </button>
      <Link
        className={`${size} secondary`}
        to="/diary/$id/edit"
        params={{ id: String(task.id) }}
        aria-label={t(owner ? 'task.edit_label' : 'task.update_label', { name: task.name })}
      >
        {t(owner ? 'task.edit' : 'task.update')}
      </Link>
      {owner && onDelete && (
        <button
          type="button"
          className={`${size} danger-outline`}
          aria-label={t('task.delete_label', { name: task.name })}
          onClick={() => onDelete(task)}
        >
          {t('task.delete')}
        </button>
      )}
    </div>
  );
}

/** The task's description as plain text (the API allows HTML in it). */
export function plainDescription(task: Task): string {
  return task.description
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The task's stage, with its sub-stages: "Care · Watering, Weeding". */
export function stageOf(task: Task): string | null {
  if (!task.category) return null;
  const subs = task.sub_cates.map((x) => x.name).join(', ');
  return subs ? `${task.category.name} · ${subs}` : task.category.name;
}

/** The name shown for a person. */
export function personName(person: { name: string; firstname?: string; lastname?: string } | null): string {
  if (!person) return '';
  return person.name || [person.firstname, person.lastname].filter(Boolean).join(' ');
}

export function TaskCard({
  task,
  onDelete,
  showPerson,
}: {
  task: Task;
  onDelete?: (task: Task) => void;
  showPerson: boolean;
}) {
  const { t } = useTexts(texts);
  const description = plainDescription(task);
  const classes = ['task-card', task.done_at ? 'is-done' : task.overdue ? 'is-overdue' : ''].filter(Boolean);
  return (
    <article className={classes.join(' ')} aria-labelledby={`task-${task.id}-name`} data-task-id={task.id}>
      <div className="task-card-head">
        <h3 id={`task-${task.id}-name`} className="task-name">
          {task.name}
        </h3>
        <TaskStatus task={task} />
      </div>
      <p className="task-meta">
        <TaskWhen task={task} />
        <span>{stageOf(task) ?? t('task.no_stage')}</span>
        {task.season && <span>{task.season.name}</span>}
        {showPerson && (
          <span>
            {task.assigned ? t('task.assigned_to', { name: personName(task.assigned) }) : t('task.nobody')}
          </span>
        )}
        {task.location && <span>{task.location}</span>}
      </p>
      {description && <p className="task-description">{description}</p>}
      <TaskActions task={task} onDelete={onDelete} />
    </article>
  );
}
