import type { Session } from '../api';
import { LANGUAGES, type Language, useI18n } from '../i18n';
import { followLink, hrefFor } from '../router';

interface HeaderProps {
  session: Session | null;
  onLanguage: (language: Language) => void;
  onSignOut: () => void;
}

export function Header({ session, onLanguage, onSignOut }: HeaderProps) {
  const { t, language } = useI18n();
  return (
    <header className="app-header">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        <span className="brand-name">{t('app.name')}</span>
        <span className="brand-section">{t('app.section')}</span>
      </div>
      {session && (
        <nav aria-label={t('app.primary_nav')} className="app-nav">
          <a
            href={hrefFor({ page: 'webhooks' })}
            onClick={followLink({ page: 'webhooks' })}
            aria-current="page"
          >
            {t('nav.webhooks')}
          </a>
        </nav>
      )}
      <div className="header-tools">
        {session && (
          <p className="account">
            {t('header.account', {
              name: session.user.name || session.user.username,
              role: t(session.user.role === 'owner' ? 'role.owner' : 'role.staff'),
              tenant: session.tenant.name,
            })}
          </p>
        )}
        <label className="language">
          <span className="visually-hidden">{t('app.language')}</span>
          <select value={language} onChange={(event) => onLanguage(event.target.value as Language)}>
            {LANGUAGES.map((code) => (
              <option key={code} value={code} lang={code}>
                {t(code === 'en' ? 'lang.en' : 'lang.vi')}
              </option>
            ))}
          </select>
        </label>
        {session && (
          <button type="button" className="button secondary" onClick={onSignOut}>
            {t('header.sign_out')}
          </button>
        )}
      </div>
    </header>
  );
}
