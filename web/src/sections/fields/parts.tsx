// Small parts the Fields pages share: who may change places, the place kinds' words, the
// "Show more" button of a paged list and the notice staff see on a form's address.
import { Link } from '@tanstack/react-router';
import type { RefObject } from 'react';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { PageHeading } from '../../ui/PageHeading';
import type { Kind } from './api';
import { type FieldsText, texts } from './texts';

/** Owners add, change and delete places; staff only read them. */
export function useIsOwner(): boolean {
  return useSession().session?.user.role === 'owner';
}

/** The text of a kind: `kindText('blocks', 'add')` → 'blocks.add'. */
export function kindText(kind: Kind, what: string): FieldsText {
  return `${kind}.${what}` as FieldsText;
}

/** The farm page's address, on the tab of a kind (blocks, the first, has none). */
export function farmSearch(kind: Kind): Record<string, string> {
  return kind === 'blocks' ? {} : { show: kind };
}

interface ShowMoreProps {
  label: string;
  shown: number;
  total: number | undefined;
  loading: boolean;
  onMore: () => Promise<unknown>;
  /** The list the next page goes into: its first new item takes the focus. */
  listRef: RefObject<HTMLUListElement | null>;
}

/** Frames to wait at most for the next page's first item to be drawn (about 2 s). */
const FOCUS_FRAMES = 120;

/**
 * Reads the next page of a list. The button keeps the focus while it loads; then the first new
 * item takes it (the button may be gone: nothing more to read). The page's data may arrive a few
 * frames before its items are drawn on a busy phone, so the item is looked for frame by frame.
 */
export function ShowMore({ label, shown, total, loading, onMore, listRef }: ShowMoreProps) {
  const { t } = useTexts(texts);
  function focusFirstNew(framesLeft: number) {
    const target = listRef.current?.children[shown]?.querySelector<HTMLElement>('[data-focus-target]');
    if (target) target.focus();
    else if (framesLeft > 0) requestAnimationFrame(() => focusFirstNew(framesLeft - 1));
  }
  function more() {
    if (loading) return;
    void onMore().then(() => requestAnimationFrame(() => focusFirstNew(FOCUS_FRAMES)));
  }
  return (
    <div className="show-more">
      {total !== undefined && (
        <p className="muted">{t('fields.shown', { shown: String(shown), total: String(total) })}</p>
      )}
      <button type="button" className="button secondary" aria-disabled={loading || undefined} onClick={more}>
        {loading ? t('fields.loading_more') : label}
      </button>
    </div>
  );
}

/** What staff see on the address of a form: the API would refuse them anyway. */
export function OwnerOnlyForm({ title }: { title: string }) {
  const { t } = useTexts(texts);
  return (
    <section className="page narrow">
      <PageHeading>{title}</PageHeading>
      <div className="notice notice-info">
        <p>{t('form.owner_only')}</p>
      </div>
      <p>
        <Link to="/fields">← {t('farm.back')}</Link>
      </p>
    </section>
  );
}
