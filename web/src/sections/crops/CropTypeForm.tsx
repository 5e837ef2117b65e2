// Add or edit a variety: its name, the variety it belongs to, a picture and notes.
import { useNavigate, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field } from '../../ui/Field';
import { ErrorState, Loading } from '../../ui/States';
import { type CropType, type CropTypeInput, useCropTypes, useSaveCropType } from './api';
import { RecordForm, RecordFrame, ReferenceOptions, useRecordErrors } from './RecordForm';
import { texts } from './texts';

const FIELDS = ['name', 'parent_id', 'images', 'description'] as const;
const P = 'type';

function CropTypeForm({ type }: { type: CropType | null }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const save = useSaveCropType(type ? String(type.id) : null);
  const types = useCropTypes();
  const [name, setName] = useState(type?.name ?? '');
  const [parent, setParent] = useState(type?.parent_id ? String(type.parent_id) : '');
  const [image, setImage] = useState(type?.images ?? '');
  const [description, setDescription] = useState(type?.description ?? '');
  const { errors, clear, refused, summaryRef } = useRecordErrors(P, FIELDS);

  function submit() {
    clear();
    const input: CropTypeInput = {
      name: name.trim(),
      parent_id: parent ? Number(parent) : null,
      images: image.trim() || null,
      description,
    };
    save.mutate(input, {
      onSuccess: (saved) => {
        announce(t(type ? 'form.saved' : 'form.added', { name: saved?.name ?? input.name }));
        void navigate({ to: '/crops/types' });
      },
      onError: refused,
    });
  }

  return (
    <RecordForm
      back="/crops/types"
      errors={errors}
      summaryRef={summaryRef}
      saving={save.isPending}
      adding={type === null}
      onSubmit={submit}
    >
      <Field id={`${P}-name`} label={t('form.name')} error={errors.fields.name}>
        {(control) => (
          <input
            {...control}
            name="name"
            required
            maxLength={255}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      <Field
        id={`${P}-parent_id`}
        label={t('form.parent_type')}
        hint={t('form.parent_type_hint')}
        error={errors.fields.parent_id}
      >
        {(control) => (
          <select {...control} name="parent_id" value={parent} onChange={(e) => setParent(e.target.value)}>
            <ReferenceOptions records={types.data ?? []} except={type?.id} />
          </select>
        )}
      </Field>
      <Field
        id={`${P}-images`}
        label={t('form.image')}
        hint={t('form.image_hint')}
        error={errors.fields.images}
      >
        {(control) => (
          <input
            {...control}
            name="images"
            type="url"
            inputMode="url"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            value={image}
            onChange={(e) => setImage(e.target.value)}
          />
        )}
      </Field>
      <Field id={`${P}-description`} label={t('form.description')} error={errors.fields.description}>
        {(control) => (
          <textarea
            {...control}
            name="description"
            rows={3}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        )}
      </Field>
    </RecordForm>
  );
}

function CropTypeCreatePage() {
  const { t } = useTexts(texts);
  return (
    <RecordFrame title={t('form.add_type')} back={{ to: '/crops/types', label: t('form.back_types') }}>
      <CropTypeForm type={null} />
    </RecordFrame>
  );
}

function CropTypeEditPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const { t } = useTexts(texts);
  const types = useCropTypes();
  const type = types.data?.find((r) => String(r.id) === id);
  return (
    <RecordFrame title={t('form.edit_type')} back={{ to: '/crops/types', label: t('form.back_types') }}>
      {type ? (
        <CropTypeForm key={type.id} type={type} />
      ) : types.isError ? (
        <ErrorState error={types.error} onRetry={() => void types.refetch()} />
      ) : types.data ? (
        <p className="notice notice-error">{t('form.not_found')}</p>
      ) : (
        <Loading label={t('form.loading')} />
      )}
    </RecordFrame>
  );
}

/** The add page and the edit page (the address names the record) are one module, loaded once. */
export default function CropTypeFormPage() {
  const { id } = useParams({ strict: false }) as { id?: string };
  return id === undefined ? <CropTypeCreatePage /> : <CropTypeEditPage />;
}
