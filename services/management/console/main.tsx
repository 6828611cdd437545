import { render } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ErrorNote } from '../../../libs/web/ui/components.js';
import '../../../libs/web/ui/styles.css';
import './styles/console.css';
import './styles/pieces.css';
import './styles/admins.css';
import './styles/lists.css';
import { AdminApi, ApiContext } from './shared/api/admin-api.js';
import { ROLE_WORDS } from './shared/words/admin-words.js';
import { AdminsPage } from './pages/admins/admins-page.js';
import { AuditLogPage } from './pages/audit-log/audit-log-page.js';
import { CatalogPage } from './pages/catalog/catalog-page.js';
import {
  ProductsAndPlansContext,
  type ProductsAndPlans,
} from './shared/hooks/products-and-plans.js';
import { DownloadLogPage } from './pages/download-log/download-log-page.js';
import { TrialsPage } from './pages/trials/trials-page.js';
import { useLoad } from './shared/hooks/hooks.js';
import { LicenseDetailPage } from './pages/license-detail/license-detail-page.js';
import { NO_SEARCH, type LicenseSearch } from './pages/licenses/license-search.js';
import { LicensesPage } from './pages/licenses/licenses-page.js';
import {
  SECTIONS,
  currentView,
  pushView,
  replaceView,
  sectionView,
  type View,
} from './navigation.js';
import { JobsPage } from './pages/jobs/jobs-page.js';
import { OverviewPage } from './pages/overview/overview-page.js';
import { SignedInContext, signedIn } from './shared/hooks/permissions.js';
import { forgetToken, keepToken, storedToken } from './session.js';
import { SignIn } from './pages/sign-in/sign-in-page.js';
import { StoresPage } from './pages/stores/stores-page.js';
import { VersionsPage } from './pages/versions/versions-page.js';
import { WebhookEndpointPage } from './pages/webhook-endpoint/webhook-endpoint-page.js';
import { WebhooksPage } from './pages/webhooks/webhooks-page.js';

/**
 * The admin console: the management API in a browser, for people. Every action is a call of
 * that API with the admin token of this tab (session.ts); every value it shows is rendered as
 * text; navigation keeps license keys out of the address bar (navigation.ts).
 */

/** Titles end up in the browser's history list: they name the section, never a key. */
const TITLES: Record<View['section'], string> = {
  overview: 'Overview',
  licenses: 'Licenses',
  license: 'License',
  catalog: 'Products and plans',
  versions: 'Versions and files',
  'download-log': 'Download log',
  trials: 'Trials',
  webhooks: 'Webhooks',
  stores: 'Stores',
  jobs: 'Jobs and health',
  admins: 'Admins',
  'audit-log': 'Audit log',
};

/** The section a role may open: the Admins page is an owner's. */
const SECTION_OPERATION: Partial<Record<View['section'], string>> = {
  admins: 'listAdmins',
  'audit-log': 'listAuditLog',
};

function useProductsAndPlansData(api: AdminApi): {
  productsAndPlans: ProductsAndPlans;
  error: unknown;
} {
  const loaded = useLoad(async () => {
    const [{ products }, { plans }] = await Promise.all([
      api.call('listProducts'),
      api.call('listPlans'),
    ]);
    return { products, plans };
  }, [api]);
  const productsAndPlans = useMemo(
    () => ({
      products: loaded.data?.products ?? [],
      plans: loaded.data?.plans ?? [],
      reload: loaded.reload,
    }),
    [loaded.data, loaded.reload],
  );
  return { productsAndPlans, error: loaded.error };
}

function SignedIn({ api, onSignOut }: { api: AdminApi; onSignOut: () => void }) {
  const [view, setView] = useState<View>(currentView);
  const [search, setSearch] = useState<LicenseSearch>(NO_SEARCH);
  const { productsAndPlans, error } = useProductsAndPlansData(api);
  const me = useLoad(() => api.call('signedInAdmin'), [api]);
  const session = useMemo(() => signedIn(me.data), [me.data]);
  const sections = SECTIONS.filter(({ section }) => {
    const operation = SECTION_OPERATION[section];
    return operation === undefined || session.can(operation);
  });
  const main = useRef<HTMLElement>(null);
  const moved = useRef(false);

  // Once: the entry the console opened on gets its state and key-free address; back and
  // forward then move between views.
  useEffect(() => {
    replaceView(view);
    const onPopState = () => setView(currentView());
    addEventListener('popstate', onPopState);
    return () => removeEventListener('popstate', onPopState);
  }, []);

  useEffect(() => {
    document.title = `${TITLES[view.section]} – Licensing console`;
    // After a move within the console, screen readers and keyboards start at the new content.
    if (moved.current) main.current?.focus();
    moved.current = true;
  }, [view]);

  const go = useCallback((next: View) => {
    pushView(next);
    setView(next);
  }, []);
  const openLicense = useCallback((key: string) => go({ section: 'license', key }), [go]);

  let page;
  switch (view.section) {
    case 'overview':
      page = <OverviewPage />;
      break;
    case 'licenses':
      page = <LicensesPage search={search} onSearch={setSearch} onOpen={openLicense} />;
      break;
    case 'license':
      page = (
        <LicenseDetailPage
          key={view.key}
          licenseKey={view.key}
          onBack={() => go({ section: 'licenses' })}
        />
      );
      break;
    case 'catalog':
      page = <CatalogPage onVersions={(productId) => go({ section: 'versions', productId })} />;
      break;
    case 'versions':
      page = (
        <VersionsPage
          productId={view.productId}
          onProduct={(productId) => {
            const next: View = { section: 'versions', productId };
            replaceView(next);
            setView(next);
          }}
        />
      );
      break;
    case 'download-log':
      page = <DownloadLogPage onOpenLicense={openLicense} />;
      break;
    case 'trials':
      page = <TrialsPage onOpenLicense={openLicense} />;
      break;
    case 'webhooks':
      // The endpoints, or one of them with its deliveries.
      page =
        view.endpointId === null ? (
          <WebhooksPage onOpen={(endpointId) => go({ section: 'webhooks', endpointId })} />
        ) : (
          <WebhookEndpointPage
            key={view.endpointId}
            endpointId={view.endpointId}
            onBack={() => go({ section: 'webhooks', endpointId: null })}
          />
        );
      break;
    case 'stores':
      page = <StoresPage />;
      break;
    case 'jobs':
      page = <JobsPage />;
      break;
    case 'admins':
      page = <AdminsPage />;
      break;
    case 'audit-log':
      page = <AuditLogPage />;
      break;
  }

  const current = view.section === 'license' ? 'licenses' : view.section;
  return (
    <SignedInContext.Provider value={session}>
      <ProductsAndPlansContext.Provider value={productsAndPlans}>
        <header class="topbar">
          <button type="button" class="skip" onClick={() => main.current?.focus()}>
            Skip to content
          </button>
          <span class="brand">Licensing console</span>
          <nav aria-label="Sections">
            <ul>
              {sections.map(({ section, label }) => (
                <li key={section}>
                  <a
                    href={`#${section}`}
                    aria-current={current === section ? 'page' : undefined}
                    onClick={(event) => {
                      event.preventDefault();
                      go(sectionView(section));
                    }}
                  >
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          {me.data !== null && (
            <span class="who" title={ROLE_WORDS[me.data.role].can}>
              {me.data.name} · {ROLE_WORDS[me.data.role].name}
            </span>
          )}
          <button type="button" class="secondary sign-out" onClick={onSignOut}>
            Sign out
          </button>
        </header>
        <main id="content" ref={main} tabIndex={-1}>
          <ErrorNote error={error ?? me.error} />
          {page}
        </main>
      </ProductsAndPlansContext.Provider>
    </SignedInContext.Provider>
  );
}

function Console() {
  const [token, setToken] = useState<string | null>(storedToken);
  const [notice, setNotice] = useState<string | null>(null);
  const signOut = useCallback((why: string) => {
    forgetToken();
    // The entry's state may name a license: leave nothing of the session in this entry.
    history.replaceState(null, '', location.pathname);
    setToken(null);
    setNotice(why);
  }, []);
  const api = useMemo(
    () =>
      token === null
        ? null
        : new AdminApi(token, () =>
            signOut('The admin token is no longer accepted: sign in again.'),
          ),
    [token, signOut],
  );
  if (api === null) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(accepted) => {
          keepToken(accepted);
          setNotice(null);
          setToken(accepted);
        }}
      />
    );
  }
  return (
    <ApiContext.Provider value={api}>
      <SignedIn api={api} onSignOut={() => signOut('You are signed out.')} />
    </ApiContext.Provider>
  );
}

render(<Console />, document.getElementById('app')!);
