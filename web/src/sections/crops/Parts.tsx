// Parts the Crops section's pages share: the tabs, the search and filter, pictures, status badges,
// and the delete confirmation.
import { Link } from '@tanstack/react-router';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { PageHeading } from '../../ui/PageHeading';
import { describeError } from '../../ui/States';
import { type RecordKind, type StatusFilter, useDeleteRecord } from './api';
import { texts } from './texts';
import './crops.css';

export function useIsOwner(): boolean {
  return useSession().session.user.role === 'owner';
}

export type Tab = 'crops' | 'types' | 'categories';

const TABS: {
  tab: Tab;
  to: string;
  label: 'tab.crops' | 'tab.types' | 'tab.categories';
  add: { to: string; label: 'crops.add' | 'types.add' | 'categories.add' };
}[] = [
  { tab: 'crops', to: '/crops', label: 'tab.crops', add: { to: '/crops/new', label: 'crops.add' } },
  {
    tab: 'types',
    to: '/crops/types',
    label: 'tab.types',
    add: { to: '/crops/types/new', label: 'types.add' },
  },
  {
    tab: 'categories',
    to: '/crops/categories',
    label: 'tab.categories',
    add: { to: '/crops/categories/new', label: 'categories.add' },
  },
];

/**
 * The section's heading, its tabs, and the tab's own title and Add button (owners). It stays on
 * screen while the tabs change, so the focus stays on the tab that was chosen.
 */
export function SectionHeader({ current }: { current: Tab }) {
  const { t } = useTexts(texts);
  const tab = TABS.find((entry) => entry.tab === current) as (typeof TABS)[number];
  const isOwner = useIsOwner();
  return (
    <>
      <PageHeading title={current === 'crops' ? t('crops.title') : `${t(tab.label)} · ${t('crops.title')}`}>
        {t('crops.title')}
      </PageHeading>
      <p className="lead">{t('crops.intro')}</p>
      <nav className="crop-tabs" aria-label={t('tabs.label')}>
        <ul>
          {TABS.map((entry) => (
            <li key={entry.tab}>
              <Link
                to={entry.to}
                className="crop-tab"
                aria-current={entry.tab === current ? 'page' : undefined}
                activeOptions={{ exact: true }}
              >
                {t(entry.label)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="tab-title">
        <h2>{t(tab.label)}</h2>
        {isOwner && <AddLink tab={current} />}
      </div>
      {!isOwner && <p className="notice notice-info read-only">{t('read_only')}</p>}
    </>
  );
}

/** The tab's Add button (owners only; the list's empty state offers it too). */
export function AddLink({ tab }: { tab: Tab }) {
  const { t } = useTexts(texts);
  const { add } = TABS.find((entry) => entry.tab === tab) as (typeof TABS)[number];
  return (
    <Link className="button primary" to={add.to}>
      {t(add.label)}
    </Link>
  );
}

/** How long typing pauses before the list is searched. */
const SEARCH_PAUSE_MS = 300;

interface ListControlsProps {
  idPrefix: string;
  onSearch: (term: string) => void;
  status?: StatusFilter;
  onStatus?: (status: StatusFilter) => void;
  /** Said under the controls instead of the status filter. */
  note?: string;
  /** More filters, after the status filter. */
  children?: ReactNode;
}

/** Search by name (as the person types, after a short pause) and the active/inactive filter. */
export function ListControls({ idPrefix, onSearch, status, onStatus, note, children }: ListControlsProps) {
  const { t } = useTexts(texts);
  const [text, setText] = useState('');
  const latest = useRef(onSearch);
  latest.current = onSearch;
  useEffect(() => {
    const timer = setTimeout(() => latest.current(text.trim()), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <search className="list-controls">
      <div className="field">
        <label htmlFor={`${idPrefix}-search`}>{t('filter.search')}</label>
        <input
          id={`${idPrefix}-search`}
          type="search"
          autoComplete="off"
          enterKeyHint="search"
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') latest.current(text.trim());
          }}
        />
      </div>
      {status !== undefined && onStatus && (
        <div className="field">
          <label htmlFor={`${idPrefix}-status`}>{t('filter.status')}</label>
          <select
            id={`${idPrefix}-status`}
            value={status}
            onChange={(event) => onStatus(event.target.value as StatusFilter)}
          >
            <option value="all">{t('filter.all')}</option>
            <option value="active">{t('filter.active')}</option>
            <option value="inactive">{t('filter.inactive')}</option>
          </select>
        </div>
      )}
      {children}
      {note && <p className="hint list-note">{note}</p>}
    </search>
  );
}

/** Whether a record passes the page's search and filter (reference lists, filtered here). */
export function matches(name: string, active: boolean | null, search: string, status: StatusFilter): boolean {
  if (search && !name.toLocaleLowerCase().includes(search.toLocaleLowerCase())) return false;
  if (active !== null && status !== 'all' && active !== (status === 'active')) return false;
  return true;
}

export function StatusBadge({ active }: { active: boolean }) {
  const { t } = useTexts(texts);
  return (
    <span className={`badge ${active ? 'badge-active' : 'badge-inactive'}`}>
      {t(active ? 'status.active' : 'status.inactive')}
    </span>
  );
}

type Source =
  | { kind: 'none' }
  | { kind: 'here'; src: string }
  | { kind: 'elsewhere'; href: string; host: string };

/**
 * Where a picture's address points. The app's content policy shows pictures from its own address
 * (and data: pictures) only, so a picture kept on another website is offered as a link instead of
 * being asked for (the browser would refuse it). Anything but http(s) is not linked at all.
 */
export function pictureSource(address: string | null | undefined): Source {
  const text = (address ?? '').trim();
  if (!text) return { kind: 'none' };
  if (/^data:image\/(png|jpeg|gif|webp);/i.test(text)) return { kind: 'here', src: text };
  let url: URL;
  try {
    url = new URL(text, window.location.origin);
  } catch {
    return { kind: 'none' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'none' };
  if (url.origin === window.location.origin) return { kind: 'here', src: url.href };
  return { kind: 'elsewhere', href: url.href, host: url.host };
}

/**
 * A record's picture beside its name and details. A picture that cannot be shown (kept on another
 * website, or it failed to load) leaves a plain tile with the name's first letter, and a link to it.
 */
export function NameWithPicture({
  address,
  name,
  children,
}: {
  address: string | null | undefined;
  name: string;
  children: ReactNode;
}) {
  const { t } = useTexts(texts);
  const source = pictureSource(address);
  const [broken, setBroken] = useState<string | null>(null);
  const shown = source.kind === 'here' && broken !== source.src;
  // A broken data: picture has nowhere to link to; a broken address is still offered.
  const link =
    source.kind === 'elsewhere'
      ? { href: source.href, text: t('image.elsewhere', { host: source.host }) }
      : source.kind === 'here' && !shown
        ? { href: source.src.startsWith('data:') ? null : source.src, text: t('image.broken') }
        : null;
  return (
    <div className="with-picture">
      {shown ? (
        <img
          className="picture"
          src={source.src}
          alt={t('image.alt', { name })}
          width={56}
          height={56}
          loading="lazy"
          onError={() => setBroken(source.src)}
        />
      ) : (
        <span className="picture picture-none" aria-hidden="true">
          {[...name.trim()][0]?.toLocaleUpperCase() ?? '?'}
        </span>
      )}
      <div className="with-picture-text">
        {children}
        {link?.href && (
          <a className="picture-link" href={link.href} rel="noopener noreferrer">
            {link.text}
            <span className="visually-hidden"> ({name})</span>
          </a>
        )}
        {link && !link.href && <span className="description">{link.text}</span>}
      </div>
    </div>
  );
}

export interface Deleting {
  kind: RecordKind;
  id: number;
  name: string;
}

/** Asks before a delete; says the result and keeps the focus on the page. */
export function DeleteDialog({ deleting, onClose }: { deleting: Deleting; onClose: () => void }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const remove = useDeleteRecord();
  return (
    <ConfirmDialog
      title={t('delete.title', { name: deleting.name })}
      confirmLabel={t('delete.confirm')}
      tone="danger"
      busy={remove.isPending}
      onCancel={onClose}
      onConfirm={() =>
        remove.mutate(
          { kind: deleting.kind, id: deleting.id },
          {
            onSuccess: () => {
              announce(t('delete.done', { name: deleting.name }));
              onClose();
            },
            onError: (err) => {
              onClose();
              if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
            },
          },
        )
      }
    >
      <p>{t(deleting.kind === 'crop' ? 'delete.body' : 'delete.body_reference', { name: deleting.name })}</p>
    </ConfirmDialog>
  );
}

/** The Edit and Delete buttons of a row (owners only). */
export function RowActions({
  editTo,
  name,
  onDelete,
}: {
  editTo: string;
  name: string;
  onDelete: () => void;
}) {
  const { t } = useTexts(texts);
  return (
    <>
      <Link className="button small secondary" to={editTo} aria-label={t('action.edit_label', { name })}>
        {t('action.edit')}
      </Link>
      <button
        type="button"
        className="button small danger-outline"
        aria-label={t('action.delete_label', { name })}
        onClick={onDelete}
      >
        {t('action.delete')}
      </button>
    </>
  );
}
