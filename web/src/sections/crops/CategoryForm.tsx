// Add or edit a product group: its name, code, the group it belongs to, notes and whether it is in use.
import { useNavigate, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field } from '../../ui/Field';
import { ErrorState, Loading } from '../../ui/States';
import { type Category, type CategoryInput, useCategories, useSaveCategory } from './api';
import { ActiveField, RecordForm, RecordFrame, ReferenceOptions, useRecordErrors } from './RecordForm';
import { texts } from './texts';

const FIELDS = ['name', 'code', 'parent_id', 'description', 'status'] as const;
const P = 'category';

function CategoryForm({ category }: { category: Category | null }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const save = useSaveCategory(category ? String(category.id) : null);
  const categories = useCategories();
  const [name, setName] = useState(category?.name ?? '');
  const [code, setCode] = useState(category?.code ?? '');
  const [parent, setParent] = useState(category?.parent_id ? String(category.parent_id) : '');
  const [description, setDescription] = useState(category?.description ?? '');
  const [active, setActive] = useState(category ? category.status === 1 : true);
  const { errors, clear, refused, summaryRef } = useRecordErrors(P, FIELDS);

  function submit() {
    clear();
    const input: CategoryInput = {
      name: name.trim(),
      code: code.trim(),
      parent_id: parent ? Number(parent) : null,
      description,
      status: active ? 1 : 0,
    };
    save.mutate(input, {
      onSuccess: (saved) => {
        announce(t(category ? 'form.saved' : 'form.added', { name: saved?.name ?? input.name }));
        void navigate({ to: '/crops/categories' });
      },
      onError: refused,
    });
  }

  return (
    <RecordForm
      back="/crops/categories"
      errors={errors}
      summaryRef={summaryRef}
      saving={save.isPending}
      adding={category === null}
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
      <Field id={`${P}-code`} label={t('form.code')} error={errors.fields.code}>
        {(control) => (
          <input
            {...control}
            name="code"
            autoComplete="off"
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        )}
      </Field>
      <Field
        id={`${P}-parent_id`}
        label={t('form.parent_category')}
        hint={t('form.parent_category_hint')}
        error={errors.fields.parent_id}
      >
        {(control) => (
          <select {...control} name="parent_id" value={parent} onChange={(e) => setParent(e.target.value)}>
            <ReferenceOptions records={categories.data ?? []} except={category?.id} />
          </select>
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
      <ActiveField id={`${P}-status`} checked={active} onChange={setActive} error={errors.fields.status} />
    </RecordForm>
  );
}

function CategoryCreatePage() {
  const { t } = useTexts(texts);
  return (
    <RecordFrame
      title={t('form.add_category')}
      back={{ to: '/crops/categories', label: t('form.back_categories') }}
    >
      <CategoryForm category={null} />
    </RecordFrame>
  );
}

function CategoryEditPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const { t } = useTexts(texts);
  const categories = useCategories();
  const category = categories.data?.find((r) => String(r.id) === id);
  return (
    <RecordFrame
      title={t('form.edit_category')}
      back={{ to: '/crops/categories', label: t('form.back_categories') }}
    >
      {category ? (
        <CategoryForm key={category.id} category={category} />
      ) : categories.isError ? (
        <ErrorState error={categories.error} onRetry={() => void categories.refetch()} />
      ) : categories.data ? (
        <p className="notice notice-error">{t('form.not_found')}</p>
      ) : (
        <Loading label={t('form.loading')} />
      )}
    </RecordFrame>
  );
}

/** The add page and the edit page (the address names the record) are one module, loaded once. */
export default function CategoryFormPage() {
  const { id } = useParams({ strict: false }) as { id?: string };
  return id === undefined ? <CategoryCreatePage /> : <CategoryEditPage />;
}
