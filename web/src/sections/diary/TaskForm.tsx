// Add or change a task. Owners set everything: name, season, stage, person, times, place, notes.
// Staff change only what they did on their own task: the notes, the end and whether it is done
// (the API refuses anything else). Refusals show next to their field; the focus goes to the first.
import { Link } from '@tanstack/react-router';
import { type FormEvent, type RefObject, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import {
  type Person,
  type SeasonChoice,
  type Stage,
  type Substage,
  type Task,
  type TaskInput,
  usePeople,
  useSaveTask,
  useSeasonChoices,
  useStages,
  useSubstages,
} from './api';
import { lastDiarySearch } from './nav';
import { personName, stageOf, TaskStatus, TaskWhen, useTaskRights } from './TaskParts';
import { texts } from './texts';
import { fromApi, fromLocalInput, toApi, toLocalInput } from './time';

const FIELDS = [
  'name',
  'season_id',
  'category_task_id',
  'assigned_to',
  'start',
  'end',
  'location',
  'description',
  'done',
] as const;
type FieldName = (typeof FIELDS)[number];

interface TaskFormProps {
  /** The task to change; none to add one. */
  task: Task | null;
  /** A new task's start (the day chosen in the week). */
  start?: Date;
  onDone: (task: Task) => void;
}

export function TaskForm({ task, start, onDone }: TaskFormProps) {
  const { t } = useTexts(texts);
  const { owner } = useTaskRights();
  const seasons = useSeasonChoices();
  const stages = useStages();
  const substages = useSubstages();
  const people = usePeople({ enabled: owner });
  const choices = owner ? [seasons, stages, substages, people] : [];
  const failed = choices.find((query) => query.isError);
  const title = task === null ? 'form.add_title' : owner ? 'form.edit_title' : 'form.update_title';
  return (
    <section className="page narrow task-form-page">
      <Link className="back" to="/diary" search={lastDiarySearch() as Record<string, unknown>}>
        ← {t('form.back')}
      </Link>
      <PageHeading>{t(title)}</PageHeading>
      {failed ? (
        <ErrorState error={failed.error} onRetry={() => choices.forEach((query) => void query.refetch())} />
      ) : !owner ? (
        task && <TaskFields task={task} onDone={onDone} owner={false} />
      ) : seasons.data && stages.data && substages.data && people.data ? (
        <TaskFields
          task={task}
          start={start}
          onDone={onDone}
          owner
          choices={{
            seasons: seasons.data,
            stages: stages.data,
            substages: substages.data,
            people: people.data,
          }}
        />
      ) : (
        <Loading label={t('form.choices_loading')} />
      )}
    </section>
  );
}

interface Choices {
  seasons: SeasonChoice[];
  stages: Stage[];
  substages: Substage[];
  people: Person[];
}

function defaultStart(day?: Date): Date {
  if (day) return new Date(day.getFullYear(), day.getMonth(), day.getDate(), 7, 0);
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate(), now.getHours() + 1, 0);
}

function TaskFields({
  task,
  start: day,
  onDone,
  owner,
  choices,
}: TaskFormProps & { owner: boolean; choices?: Choices }) {
  const { t } = useTexts(texts);
  const save = useSaveTask(task?.id ?? null);
  const [name, setName] = useState(task?.name ?? '');
  const [seasonId, setSeasonId] = useState(task?.season_id ? String(task.season_id) : '');
  const [stageId, setStageId] = useState(task?.category_task_id ? String(task.category_task_id) : '');
  const [subIds, setSubIds] = useState<ReadonlySet<number>>(() => new Set(task?.sub_cates.map((x) => x.id)));
  const [personId, setPersonId] = useState(task?.assigned_to ? String(task.assigned_to) : '');
  const [start, setStart] = useState(toLocalInput(task ? fromApi(task.start) : defaultStart(day)));
  const [end, setEnd] = useState(toLocalInput(fromApi(task?.end)));
  const [location, setLocation] = useState(task?.location ?? '');
  const [description, setDescription] = useState(task?.description ?? '');
  const [done, setDone] = useState(task?.done_at != null);
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const refs: Record<FieldName, RefObject<HTMLElement | null>> = {
    name: useRef<HTMLInputElement>(null),
    season_id: useRef<HTMLSelectElement>(null),
    category_task_id: useRef<HTMLSelectElement>(null),
    assigned_to: useRef<HTMLSelectElement>(null),
    start: useRef<HTMLInputElement>(null),
    end: useRef<HTMLInputElement>(null),
    location: useRef<HTMLInputElement>(null),
    description: useRef<HTMLTextAreaElement>(null),
    done: useRef<HTMLInputElement>(null),
  };
  const summaryRef = useRef<HTMLDivElement>(null);

  const stageSubs = (choices?.substages ?? []).filter((x) => String(x.category_task_id) === stageId);

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    requestAnimationFrame(() => {
      const first = FIELDS.find((field) => next.fields[field]);
      if (first) refs[first].current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    const startAt = fromLocalInput(start);
    const endAt = fromLocalInput(end);
    const startOrStored = owner ? startAt : fromApi(task?.start);
    if (startOrStored && endAt && endAt < startOrStored) {
      showErrors({ fields: { end: t('form.end_before_start') }, general: [] });
      return;
    }
    setErrors(noErrors());
    const wasDone = task?.done_at != null;
    const input: Partial<TaskInput> = {
      description,
      end: endAt ? toApi(endAt) : null,
      ...(task === null || done !== wasDone ? { done } : {}),
    };
    if (owner) {
      Object.assign(input, {
        name: name.trim(),
        season_id: seasonId === '' ? null : Number(seasonId),
        category_task_id: stageId === '' ? null : Number(stageId),
        assigned_to: personId === '' ? null : Number(personId),
        start: startAt ? toApi(startAt) : '',
        location: location.trim(),
        sub_cates: stageSubs.filter((x) => subIds.has(x.id)).map((x) => x.id),
      });
    }
    save.mutate(input, {
      onSuccess: onDone,
      onError: (err) => {
        if (!(err instanceof SessionExpiredError)) showErrors(formErrors(err, FIELDS, t));
      },
    });
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;
  const toggleSub = (id: number, on: boolean) =>
    setSubIds((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const ref = <E extends HTMLElement>(field: FieldName) => refs[field] as RefObject<E>;

  return (
    <form onSubmit={submit} noValidate className="task-form">
      {(errors.general.length > 0 || hasFieldErrors) && (
        <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
          {errors.general.length > 0 ? (
            errors.general.map((message) => <p key={message}>{message}</p>)
          ) : (
            <p>{t('error.fix_fields')}</p>
          )}
        </div>
      )}

      {!owner && task && (
        <section className="settings task-summary" aria-labelledby="task-summary-title">
          <h2 id="task-summary-title" className="visually-hidden">
            {t('form.summary')}
          </h2>
          <p className="task-summary-name">{task.name}</p>
          <dl className="facts compact">
            <div>
              <dt>{t('col.when')}</dt>
              <dd>
                <TaskWhen task={task} />
              </dd>
            </div>
            <div>
              <dt>{t('col.stage')}</dt>
              <dd>{stageOf(task) ?? t('task.no_stage')}</dd>
            </div>
            <div>
              <dt>{t('col.season')}</dt>
              <dd>{task.season?.name ?? t('task.no_season')}</dd>
            </div>
            <div>
              <dt>{t('col.status')}</dt>
              <dd>
                <TaskStatus task={task} />
              </dd>
            </div>
          </dl>
        </section>
      )}

      {owner && choices && (
        <>
          <Field id="task-name" label={t('form.name')} hint={t('form.name_hint')} error={errors.fields.name}>
            {(control) => (
              <input
                {...control}
                ref={ref<HTMLInputElement>('name')}
                name="name"
                maxLength={255}
                value={name}
                onChange={(event) => setName(event.target.value)}
              />
            )}
          </Field>
          <div className="form-grid">
            <Field id="task-season" label={t('form.season')} error={errors.fields.season_id}>
              {(control) => (
                <select
                  {...control}
                  ref={ref<HTMLSelectElement>('season_id')}
                  name="season_id"
                  value={seasonId}
                  onChange={(event) => setSeasonId(event.target.value)}
                >
                  <option value="">{t('form.season_none')}</option>
                  {choices.seasons.map((season) => (
                    <option key={season.id} value={season.id}>
                      {season.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field
              id="task-stage"
              label={t('form.stage')}
              hint={choices.stages.length === 0 ? t('form.no_stages') : undefined}
              error={errors.fields.category_task_id}
            >
              {(control) => (
                <select
                  {...control}
                  ref={ref<HTMLSelectElement>('category_task_id')}
                  name="category_task_id"
                  value={stageId}
                  onChange={(event) => setStageId(event.target.value)}
                >
                  <option value="">{t('form.stage_none')}</option>
                  {choices.stages.map((stage) => (
                    <option key={stage.id} value={stage.id}>
                      {stage.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
          {stageSubs.length > 0 && (
            <fieldset className="field substages-field">
              <legend>{t('form.substages')}</legend>
              {stageSubs.map((sub) => (
                <label className="check" key={sub.id}>
                  <input
                    type="checkbox"
                    name="sub_cates"
                    value={sub.id}
                    checked={subIds.has(sub.id)}
                    onChange={(event) => toggleSub(sub.id, event.target.checked)}
                  />
                  <span>{sub.name}</span>
                </label>
              ))}
            </fieldset>
          )}
          <Field id="task-person" label={t('form.person')} error={errors.fields.assigned_to}>
            {(control) => (
              <select
                {...control}
                ref={ref<HTMLSelectElement>('assigned_to')}
                name="assigned_to"
                value={personId}
                onChange={(event) => setPersonId(event.target.value)}
              >
                <option value="">{t('form.person_none')}</option>
                {choices.people.map((person) => (
                  <option key={person.id} value={person.id}>
                    {personName(person)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </>
      )}

      <div className="form-grid">
        {owner && (
          <Field id="task-start" label={t('form.start')} error={errors.fields.start}>
            {(control) => (
              <input
                {...control}
                ref={ref<HTMLInputElement>('start')}
                type="datetime-local"
                name="start"
                value={start}
                onChange={(event) => setStart(event.target.value)}
              />
            )}
          </Field>
        )}
        <Field id="task-end" label={t('form.end')} hint={t('form.end_hint')} error={errors.fields.end}>
          {(control) => (
            <input
              {...control}
              ref={ref<HTMLInputElement>('end')}
              type="datetime-local"
              name="end"
              min={owner ? start || undefined : undefined}
              value={end}
              onChange={(event) => setEnd(event.target.value)}
            />
          )}
        </Field>
      </div>

      {owner && (
        <Field id="task-location" label={t('form.location')} error={errors.fields.location}>
          {(control) => (
            <input
              {...control}
              ref={ref<HTMLInputElement>('location')}
              name="location"
              maxLength={1000}
              value={location}
              onChange={(event) => setLocation(event.target.value)}
            />
          )}
        </Field>
      )}

      <Field
        id="task-description"
        label={t(owner ? 'form.notes' : 'form.description')}
        hint={t(owner ? 'form.notes_hint' : 'form.description_hint')}
        error={errors.fields.description}
      >
        {(control) => (
          <textarea
            {...control}
            ref={ref<HTMLTextAreaElement>('description')}
            name="description"
            rows={4}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
        )}
      </Field>

      {task !== null && (
        <div className={`field done-field${errors.fields.done ? ' invalid' : ''}`}>
          <label className="check" htmlFor="task-done">
            <input
              id="task-done"
              ref={ref<HTMLInputElement>('done')}
              type="checkbox"
              name="done"
              checked={done}
              onChange={(event) => setDone(event.target.checked)}
            />
            <span>{t('form.done')}</span>
          </label>
          {errors.fields.done && <p className="field-error">{errors.fields.done}</p>}
        </div>
      )}

      <div className="form-actions">
        <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
          {save.isPending ? t('form.saving') : t(task === null ? 'form.create' : 'form.save')}
        </button>
        <Link className="button secondary" to="/diary" search={lastDiarySearch() as Record<string, unknown>}>
          {t('form.cancel')}
        </Link>
      </div>
    </form>
  );
}
