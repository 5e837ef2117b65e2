// A signing secret, shown once (after create and after rotate), with a copy button.
import { useI18n } from '../../app/i18n';
import { ShownOnce } from '../../ui/ShownOnce';

interface SecretNoticeProps {
  secret: string;
  reason: 'created' | 'rotated';
  /** What happened, when the reason's own words do not say it all (a rotation with an overlap). */
  context?: string | undefined;
  onDismiss: () => void;
}

export function SecretNotice({ secret, reason, context, onDismiss }: SecretNoticeProps) {
  const { t } = useI18n();
  return (
    <ShownOnce
      value={secret}
      onDismiss={onDismiss}
      words={{
        title: t('secret.title'),
        context: context ?? t(reason === 'created' ? 'secret.created' : 'secret.rotated'),
        warning: t('secret.once'),
        copy: t('secret.copy'),
        copied: t('secret.copied'),
        copyFailed: t('secret.copy_failed'),
        use: t('secret.use'),
        done: t('secret.done'),
      }}
    />
  );
}
