// Start a season (from a template or not) or change one. The crop comes first: it narrows the
// templates, and a template fills in the crop and the name. The code is made by Furrow when it is
// left empty. The API's refusals are shown next to their field, and the focus goes to the first.
import { Link } from '@tanstack/react-router';
import { type FormEvent, type RefObject, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import {
  type Block,
  type Crop,
  type Farm,
  type Season,
  type Template,
  useBlocks,
  useCrops,
  useFarms,
  useSaveSeason,
  useTemplates,
} from './api';
import { texts } from './texts';

const FIELDS = [
  'crop_id',
  'season_template_id',
  'name',
  'start_date',
  'end_date',
  'farm_id',
  'block_id',
  'code',
  'description',
] as const;
type FieldName = (typeof FIELDS)[number];

interface SeasonFormProps {
  /** The season to change; none to start one. */
  season: Season | null;
  /** A template to start from (the list's "Start a season" of a template). */
  templateId?: number;
  onDone: (season: Season) => void;
}

const idOf = (value: number | null | undefined) => (value == null ? '' : String(value));
const refOf = (value: string) => (value === '' ? null : Number(value));

export function SeasonForm({ season, templateId, onDone }: SeasonFormProps) {
  const { t } = useTexts(texts);
  const crops = useCrops();
  const templates = useTemplates();
  const farms = useFarms();
  const blocks = useBlocks();
  const choices = [crops, templates, farms, blocks];
  const failed = choices.find((query) => query.isError);
  const editing = season !== null;
  return (
    <section className="page narrow season-form-page">
      <Link className="back" to="/seasons">
        ← {t('form.back')}
      </Link>
      <PageHeading>{t(editing ? 'form.edit_title' : 'form.start_title')}</PageHeading>
      {failed ? (
        <ErrorState error={failed.error} onRetry={() => choices.forEach((query) => void query.refetch())} />
      ) : crops.data && templates.data && farms.data && blocks.data ? (
        <SeasonFields
          season={season}
          templateId={templateId}
          onDone={onDone}
          choices={{ crops: crops.data, templates: templates.data, farms: farms.data, blocks: blocks.data }}
        />
      ) : (
        <Loading label={t('form.choices_loading')} />
      )}
    </section>
  );
}

interface Choices {
  crops: Crop[];
  templates: Template[];
  farms: Farm[];
  blocks: Block[];
}

function SeasonFields({ season, templateId, onDone, choices }: SeasonFormProps & { choices: Choices }) {
  const { t } = useTexts(texts);
  const save = useSaveSeason(season?.id ?? null);
  const { crops, templates, farms, blocks } = choices;

  const initialTemplate =
    season === null && templateId !== undefined ? templates.find((x) => x.id === templateId) : undefined;
  const [cropId, setCropId] = useState(idOf(season?.crop_id ?? initialTemplate?.crop_id));
  const [template, setTemplate] = useState(idOf(season?.season_template_id ?? initialTemplate?.id));
  const [name, setName] = useState(season?.name ?? initialTemplate?.name ?? '');
  const [startDate, setStartDate] = useState(season?.start_date ?? '');
  const [endDate, setEndDate] = useState(season?.end_date ?? '');
  const [farmId, setFarmId] = useState(idOf(season?.farm_id));
  const [blockId, setBlockId] = useState(idOf(season?.block_id ?? initialTemplate?.block_id));
  const [code, setCode] = useState(season?.code ?? '');
  const [description, setDescription] = useState(season?.description ?? '');
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);

  const refs: Record<
    FieldName,
    RefObject<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null>
  > = {
    crop_id: useRef<HTMLSelectElement>(null),
    season_template_id: useRef<HTMLSelectElement>(null),
    name: useRef<HTMLInputElement>(null),
    start_date: useRef<HTMLInputElement>(null),
    end_date: useRef<HTMLInputElement>(null),
    farm_id: useRef<HTMLSelectElement>(null),
    block_id: useRef<HTMLSelectElement>(null),
    code: useRef<HTMLInputElement>(null),
    description: useRef<HTMLTextAreaElement>(null),
  };
  const summaryRef = useRef<HTMLDivElement>(null);

  const cropTemplates = templates.filter((x) => cropId === '' || String(x.crop_id) === cropId);
  const farmBlocks = blocks.filter((x) => String(x.farm_id) === farmId);
  const editing = season !== null;

  function chooseCrop(value: string) {
    setCropId(value);
    const chosen = templates.find((x) => String(x.id) === template);
    if (chosen && String(chosen.crop_id) !== value) setTemplate('');
  }

  function chooseTemplate(value: string) {
    setTemplate(value);
    const chosen = templates.find((x) => String(x.id) === value);
    if (!chosen) return;
    setCropId(String(chosen.crop_id));
    // The template's name is a good start for the season's, unless one was typed already.
    if (name.trim() === '' || templates.some((x) => x.name === name)) setName(chosen.name);
    if (chosen.block_id !== null && blockId === '') {
      const block = blocks.find((x) => x.id === chosen.block_id);
      if (block) {
        setFarmId(String(block.farm_id));
        setBlockId(String(block.id));
      }
    }
  }

  function chooseFarm(value: string) {
    setFarmId(value);
    setBlockId('');
  }

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
    if (startDate && endDate && endDate < startDate) {
      showErrors({ fields: { end_date: t('form.end_before_start') }, general: [] });
      return;
    }
    setErrors(noErrors());
    save.mutate(
      {
        name: name.trim(),
        crop_id: refOf(cropId),
        season_template_id: refOf(template),
        start_date: startDate || null,
        end_date: endDate || null,
        farm_id: refOf(farmId),
        block_id: refOf(blockId),
        description: description.trim() || null,
        // Empty: Furrow makes the code (on a change, the current one is kept).
        code: code.trim(),
      },
      {
        onSuccess: onDone,
        onError: (err) => {
          if (err instanceof SessionExpiredError) return;
          const next = formErrors(err, FIELDS, t);
          // The API checks the crop after the other fields: say it at once, in the form's words.
          if (cropId === '') next.fields.crop_id = t('form.crop_required');
          showErrors(next);
        },
      },
    );
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <form onSubmit={submit} noValidate className="season-form">
      {(errors.general.length > 0 || hasFieldErrors) && (
        <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
          {errors.general.length > 0 ? (
            errors.general.map((message) => <p key={message}>{message}</p>)
          ) : (
            <p>{t('error.fix_fields')}</p>
          )}
        </div>
      )}
      {crops.length === 0 && <p className="notice notice-warning">{t('form.no_crops')}</p>}

      <Field id="season-crop" label={t('form.crop')} hint={t('form.crop_hint')} error={errors.fields.crop_id}>
        {(control) => (
          <select
            {...control}
            ref={refs.crop_id as RefObject<HTMLSelectElement>}
            name="crop_id"
            value={cropId}
            onChange={(event) => chooseCrop(event.target.value)}
          >
            <option value="">{t('form.crop_pick')}</option>
            {crops.map((crop) => (
              <option key={crop.id} value={crop.id}>
                {crop.name}
              </option>
            ))}
          </select>
        )}
      </Field>

      <Field
        id="season-template"
        label={t('form.template')}
        hint={t('form.template_hint')}
        error={errors.fields.season_template_id}
      >
        {(control) => (
          <select
            {...control}
            ref={refs.season_template_id as RefObject<HTMLSelectElement>}
            name="season_template_id"
            value={template}
            onChange={(event) => chooseTemplate(event.target.value)}
          >
            <option value="">{t('form.template_none')}</option>
            {cropTemplates.map((x) => (
              <option key={x.id} value={x.id}>
                {x.name}
              </option>
            ))}
          </select>
        )}
      </Field>

      <Field id="season-name" label={t('form.name')} hint={t('form.name_hint')} error={errors.fields.name}>
        {(control) => (
          <input
            {...control}
            ref={refs.name as RefObject<HTMLInputElement>}
            name="name"
            maxLength={255}
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        )}
      </Field>

      <div className="form-grid">
        <Field id="season-start" label={t('form.start_date')} error={errors.fields.start_date}>
          {(control) => (
            <input
              {...control}
              ref={refs.start_date as RefObject<HTMLInputElement>}
              type="date"
              name="start_date"
              value={startDate}
              onChange={(event) => setStartDate(event.target.value)}
            />
          )}
        </Field>
        <Field id="season-end" label={t('form.end_date')} error={errors.fields.end_date}>
          {(control) => (
            <input
              {...control}
              ref={refs.end_date as RefObject<HTMLInputElement>}
              type="date"
              name="end_date"
              min={startDate || undefined}
              value={endDate}
              onChange={(event) => setEndDate(event.target.value)}
            />
          )}
        </Field>
      </div>

      <div className="form-grid">
        <Field id="season-farm" label={t('form.farm')} error={errors.fields.farm_id}>
          {(control) => (
            <select
              {...control}
              ref={refs.farm_id as RefObject<HTMLSelectElement>}
              name="farm_id"
              value={farmId}
              onChange={(event) => chooseFarm(event.target.value)}
            >
              <option value="">{t('form.farm_none')}</option>
              {farms.map((farm) => (
                <option key={farm.id} value={farm.id}>
                  {farm.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id="season-block"
          label={t('form.block')}
          hint={farmId === '' ? t('form.block_hint') : undefined}
          error={errors.fields.block_id}
        >
          {(control) => (
            <select
              {...control}
              ref={refs.block_id as RefObject<HTMLSelectElement>}
              name="block_id"
              value={blockId}
              onChange={(event) => setBlockId(event.target.value)}
            >
              <option value="">{t('form.block_none')}</option>
              {farmBlocks.map((block) => (
                <option key={block.id} value={block.id}>
                  {block.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>

      <Field id="season-code" label={t('form.code')} hint={t('form.code_hint')} error={errors.fields.code}>
        {(control) => (
          <input
            {...control}
            ref={refs.code as RefObject<HTMLInputElement>}
            name="code"
            maxLength={255}
            autoCapitalize="characters"
            spellCheck={false}
            value={code}
            onChange={(event) => setCode(event.target.value)}
          />
        )}
      </Field>

      <Field id="season-description" label={t('form.description')} error={errors.fields.description}>
        {(control) => (
          <textarea
            {...control}
            ref={refs.description as RefObject<HTMLTextAreaElement>}
            name="description"
            rows={3}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
        )}
      </Field>

      <div className="form-actions">
        <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
          {save.isPending ? t('form.saving') : t(editing ? 'form.submit_save' : 'form.submit_start')}
        </button>
        <Link className="button secondary" to="/seasons">
          {t('form.cancel')}
        </Link>
      </div>
    </form>
  );
}
