// Add or edit a crop or an animal: its name, group (crop or livestock, and which kind), variety,
// picture, codes, price, notes and whether it is in use.
import { useNavigate, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field } from '../../ui/Field';
import { ErrorState, Loading } from '../../ui/States';
import {
  type Crop,
  type CropInput,
  firstImage,
  imageList,
  useCategories,
  useCrop,
  useCropTypes,
  useListedImage,
  useSaveCrop,
} from './api';
import { ActiveField, RecordForm, RecordFrame, ReferenceOptions, useRecordErrors } from './RecordForm';
import { texts } from './texts';

const FIELDS = [
  'name',
  'category_id',
  'crop_type',
  'image',
  'code',
  'sku',
  'price',
  'description',
  'status',
] as const;
const P = 'crop';

export function CropForm({ crop, listedImage = '' }: { crop: Crop | null; listedImage?: string }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const save = useSaveCrop(crop ? String(crop.id) : null);
  const types = useCropTypes();
  const categories = useCategories();
  // The detail carries `images`; a record made elsewhere may have only the list's `image`.
  const startImage = firstImage(crop?.images) || listedImage;
  const [name, setName] = useState(crop?.name ?? '');
  const [category, setCategory] = useState(crop?.category_id ? String(crop.category_id) : '');
  const [type, setType] = useState(crop?.crop_type ? String(crop.crop_type) : '');
  const [image, setImage] = useState(startImage);
  const [code, setCode] = useState(crop?.code ?? '');
  const [sku, setSku] = useState(crop?.sku ?? '');
  const [price, setPrice] = useState(crop ? String(crop.price) : '');
  const [description, setDescription] = useState(crop?.description ?? '');
  const [active, setActive] = useState(crop?.status ?? true);
  const { errors, clear, show, refused, summaryRef } = useRecordErrors(P, FIELDS);

  function submit() {
    clear();
    const input: Record<string, unknown> = {
      name: name.trim(),
      category_id: category ? Number(category) : null,
      crop_type: type ? Number(type) : null,
      code: code.trim(),
      sku: sku.trim(),
      description,
      status: active ? 1 : 0,
    };
    // A price is a whole number (empty is 0); the API would refuse anything else in its own terms.
    // Thousands may be grouped as typed in either language: 25,000 / 25.000 / 25 000.
    const grouped = /^\d{1,3}([.,\s]\d{3})+$/.test(price.trim());
    const typedPrice = grouped ? price.trim().replace(/[.,\s]/g, '') : price.trim();
    if (!/^\d{1,15}$/.test(typedPrice || '0')) {
      show({ fields: { price: t('form.price_invalid') }, general: [] });
      return;
    }
    input.price = Number(typedPrice || '0');
    const picture = image.trim();
    if (crop === null || picture !== startImage) {
      // The list shows `image`; the record's pictures keep the others after the new first one.
      const others = imageList(crop?.images).filter(
        (address) => address !== startImage && address !== picture,
      );
      input.image = picture;
      input.images = picture ? [picture, ...others] : others;
    }
    save.mutate(input as CropInput, {
      onSuccess: (saved) => {
        const savedName = saved?.name ?? name.trim();
        announce(t(crop ? 'form.saved' : 'form.added', { name: savedName }));
        void navigate({ to: '/crops' });
      },
      onError: refused,
    });
  }

  return (
    <RecordForm
      back="/crops"
      errors={errors}
      summaryRef={summaryRef}
      saving={save.isPending}
      adding={crop === null}
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
        id={`${P}-category_id`}
        label={t('form.group')}
        hint={t('form.group_hint')}
        error={errors.fields.category_id}
      >
        {(control) => (
          <select
            {...control}
            name="category_id"
            value={category}
            onChange={(e) => setCategory(e.target.value)}
          >
            <ReferenceOptions records={categories.data ?? []} />
          </select>
        )}
      </Field>
      <Field id={`${P}-crop_type`} label={t('form.variety')} error={errors.fields.crop_type}>
        {(control) => (
          <select {...control} name="crop_type" value={type} onChange={(e) => setType(e.target.value)}>
            <ReferenceOptions records={types.data ?? []} />
          </select>
        )}
      </Field>
      <Field
        id={`${P}-image`}
        label={t('form.image')}
        hint={t('form.image_hint')}
        error={errors.fields.image}
      >
        {(control) => (
          <input
            {...control}
            name="image"
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
      <div className="field-pair">
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
        <Field id={`${P}-sku`} label={t('form.sku')} error={errors.fields.sku}>
          {(control) => (
            <input
              {...control}
              name="sku"
              autoComplete="off"
              value={sku}
              onChange={(e) => setSku(e.target.value)}
            />
          )}
        </Field>
      </div>
      <Field
        id={`${P}-price`}
        label={t('form.price')}
        hint={t('form.price_hint')}
        error={errors.fields.price}
      >
        {(control) => (
          <input
            {...control}
            name="price"
            inputMode="numeric"
            autoComplete="off"
            value={price}
            onChange={(e) => setPrice(e.target.value)}
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
      <ActiveField id={`${P}-status`} checked={active} onChange={setActive} error={errors.fields.status} />
    </RecordForm>
  );
}

function CropCreatePage() {
  const { t } = useTexts(texts);
  return (
    <RecordFrame title={t('form.add_crop')} back={{ to: '/crops', label: t('form.back_crops') }}>
      <CropForm crop={null} />
    </RecordFrame>
  );
}

function CropEditPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const { t } = useTexts(texts);
  const crop = useCrop(id);
  const listedImage = useListedImage(id);
  return (
    <RecordFrame title={t('form.edit_crop')} back={{ to: '/crops', label: t('form.back_crops') }}>
      {crop.data ? (
        <CropForm key={crop.data.id} crop={crop.data} listedImage={listedImage} />
      ) : crop.isError ? (
        <ErrorState error={crop.error} notFound={t('form.not_found')} onRetry={() => void crop.refetch()} />
      ) : (
        <Loading label={t('form.loading')} />
      )}
    </RecordFrame>
  );
}

/** The add page and the edit page (the address names the record) are one module, loaded once. */
export default function CropFormPage() {
  const { id } = useParams({ strict: false }) as { id?: string };
  return id === undefined ? <CropCreatePage /> : <CropEditPage />;
}
