// The frame around every page: the header (farm, language, sign out), the navigation (a side
// list on wide screens, a bottom bar with "More" on phones) and the page, or the sign-in form.
import { Link, Outlet, useRouterState } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { PageHeading } from '../ui/PageHeading';
import { useAnnounce } from './announce';
import { LANGUAGES, type Language, useI18n } from './i18n';
import { Icon } from './icons';
import { LoginAlerts } from './LoginAlerts';
import { SignIn } from './SignIn';
import { mayUse, SECTIONS, type Section, sectionOf } from './sections';
import { useSessionState } from './session';

export function Shell() {
  const { t } = useI18n();
  const { session } = useSessionState();
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  const section = sectionOf(pathname);
  const allowed = !section || !session || mayUse(section, session.user.role);

  return (
    <>
      <a className="skip-link" href="#main">
        {t('app.skip')}
      </a>
      <div className={session ? 'app signed-in' : 'app'}>
        <Header />
        {session && <Navigation current={section} />}
        <main id="main" tabIndex={-1}>
          {!session ? (
            <SignIn />
          ) : (
            <>
              {session.user.role === 'owner' && <LoginAlerts />}
              {allowed ? <Outlet /> : section && <OwnerOnly section={section} />}
            </>
          )}
        </main>
      </div>
    </>
  );
}

function Header() {
  const { t, language, setLanguage } = useI18n();
  const { session, signOut } = useSessionState();
  return (
    <header className="app-header">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        <span className="brand-name">{t('app.name')}</span>
        {session && <span className="brand-section">{session.tenant.name}</span>}
      </div>
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
          <select value={language} onChange={(event) => setLanguage(event.target.value as Language)}>
            {LANGUAGES.map((code) => (
              <option key={code} value={code} lang={code}>
                {t(code === 'en' ? 'lang.en' : 'lang.vi')}
              </option>
            ))}
          </select>
        </label>
        {session && (
          <button type="button" className="button secondary sign-out" onClick={() => void signOut()}>
            {t('header.sign_out')}
          </button>
        )}
      </div>
    </header>
  );
}

function Navigation({ current }: { current: Section | undefined }) {
  const { t, language } = useI18n();
  const { session, signOut } = useSessionState();
  const [moreOpen, setMoreOpen] = useState(false);
  const moreButton = useRef<HTMLButtonElement>(null);
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  // A move to another page closes the "More" menu.
  const [menuPath, setMenuPath] = useState(pathname);
  if (menuPath !== pathname) {
    setMenuPath(pathname);
    setMoreOpen(false);
  }
  if (!session) return null;

  // Staff are never offered an owner's section.
  const offered = SECTIONS.filter((section) => mayUse(section, session.user.role));
  const others = offered.filter((section) => !section.primary);
  const link = (section: Section) => (
    <Link to={section.path} activeOptions={{ exact: section.path === '/' }} className="nav-link">
      <Icon name={section.icon} />
      <span className="nav-label">{section.label[language]}</span>
    </Link>
  );

  return (
    <nav
      aria-label={t('app.primary_nav')}
      className="app-nav"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && moreOpen) {
          setMoreOpen(false);
          moreButton.current?.focus();
        }
      }}
    >
      <ul className="nav-list">
        {offered.map((section) => (
          <li key={section.id} className={section.primary ? 'nav-item primary' : 'nav-item secondary'}>
            {link(section)}
          </li>
        ))}
        <li className="nav-item nav-more">
          <button
            type="button"
            ref={moreButton}
            className={`nav-link${current && !current.primary ? ' current-within' : ''}`}
            aria-expanded={moreOpen}
            aria-controls="nav-more-menu"
            onClick={() => setMoreOpen((open) => !open)}
          >
            <Icon name="more" />
            <span className="nav-label">{t('nav.more')}</span>
          </button>
        </li>
      </ul>
      <div id="nav-more-menu" className="more-menu" hidden={!moreOpen}>
        <ul>
          {others.map((section) => (
            <li key={section.id}>{link(section)}</li>
          ))}
        </ul>
        <p className="more-account">
          {t('nav.signed_in_as', { name: session.user.name || session.user.username })} ·{' '}
          {t(session.user.role === 'owner' ? 'role.owner' : 'role.staff')}
        </p>
        {/* On phones signing out is here; wide screens have it in the header. */}
        <button type="button" className="button secondary more-sign-out" onClick={() => void signOut()}>
          {t('header.sign_out')}
        </button>
      </div>
    </nav>
  );
}

/** A staff member who follows a link to an owner's section: said plainly, nothing is requested. */
function OwnerOnly({ section }: { section: Section }) {
  const { t, language } = useI18n();
  const { session } = useSessionState();
  return (
    <section className="page narrow">
      <PageHeading>{section.label[language]}</PageHeading>
      <div className="notice notice-info">
        <h2>{t('owner_only.title', { section: section.label[language] })}</h2>
        <p>
          {t('owner_only.body', {
            name: session?.user.name || session?.user.username || '',
            tenant: session?.tenant.name ?? '',
          })}
        </p>
      </div>
    </section>
  );
}

export function NotFound() {
  const { t } = useI18n();
  const announce = useAnnounce();
  useEffect(() => announce(t('error.page_not_found')), [announce, t]);
  return (
    <section className="page narrow">
      <PageHeading>{t('error.page_not_found')}</PageHeading>
      <p>
        <Link to="/">{SECTIONS[0]?.label ? t('error.go_today') : ''}</Link>
      </p>
    </section>
  );
}
