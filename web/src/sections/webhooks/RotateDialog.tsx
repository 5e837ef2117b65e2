// Rotate the signing secret, choosing how long the current one keeps signing beside the new one
// (none, 1 hour, 24 hours, 7 days): the receiver can be updated without a message refused.
import { useState } from 'react';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { texts } from './texts';

/** The overlaps offered, in seconds; the server's default (24 hours) is chosen first. */
const OVERLAPS = [0, 3_600, 86_400, 604_800] as const;
type Overlap = (typeof OVERLAPS)[number];
const DEFAULT_OVERLAP: Overlap = 86_400;

interface RotateDialogProps {
  busy: boolean;
  onConfirm: (overlapSeconds: number) => void;
  onCancel: () => void;
}

export function RotateDialog({ busy, onConfirm, onCancel }: RotateDialogProps) {
  const { t } = useTexts(texts);
  const [overlap, setOverlap] = useState<Overlap>(DEFAULT_OVERLAP);
  return (
    <ConfirmDialog
      title={t('rotate.title')}
      confirmLabel={t('rotate.confirm')}
      busy={busy}
      onConfirm={() => onConfirm(overlap)}
      onCancel={onCancel}
    >
      <p>{t('controls.rotate_body')}</p>
      <fieldset className="overlap-choice">
        <legend>{t('controls.overlap_legend')}</legend>
        {OVERLAPS.map((seconds) => (
          <label className="check" key={seconds}>
            <input
              type="radio"
              name="overlap"
              value={seconds}
              checked={overlap === seconds}
              onChange={() => setOverlap(seconds)}
            />
            <span>{t(`controls.overlap_${seconds}`)}</span>
          </label>
        ))}
        <p className="hint">{t('controls.overlap_hint')}</p>
      </fieldset>
    </ConfirmDialog>
  );
}
