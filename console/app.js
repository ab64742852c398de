import { render, useEffect, useMemo, useState } from './preact-htm.js';
import { redeemHandoff, serviceBase, workspaceApi } from './api.js';
import { clearCredentials, hasExpired, loadCredentials, saveCredentials } from './credentials.js';
import { PageHeading, html } from './ui.js';
import { SignInPage, oauthSignInMessage } from './sign-in-page.js';
import { RunsPage } from './runs-page.js';
import { RunPage } from './run-page.js';
import { SessionsPage } from './sessions-page.js';
import { SessionPage } from './session-page.js';
import { ModelsPage } from './models-page.js';
import { NewRunPage } from './new-run-page.js';

/** The console's pages are addressed by the URL's fragment (`#/runs/run_…`): one HTML route serves them all. */
function currentRoute() {
  const fragment = location.hash.replace(/^#/, '') || '/runs';
  const [path, query = ''] = fragment.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { parts, query: new URLSearchParams(query) };
}

const NAVIGATION = [
  { href: '#/runs', label: 'Runs', section: 'runs' },
  { href: '#/sessions', label: 'Sessions', section: 'sessions' },
  { href: '#/models', label: 'Models', section: 'models' },
  { href: '#/new-run', label: 'New run', section: 'new-run' },
];

function Layout({ slug, section, onSignOut, children }) {
  return html`<a
      class="skip-link"
      href="#main"
      onClick=${(event) => {
        event.preventDefault();
        document.getElementById('main')?.focus();
      }}
      >Skip to content</a
    >
    <header class="top">
      <span class="brand">agent-runs console</span>
      <nav aria-label="Console">
        <ul>
          ${NAVIGATION.map(
            (item) =>
              html`<li>
                <a href=${item.href} aria-current=${item.section === section ? 'page' : undefined}
                  >${item.label}</a
                >
              </li>`,
          )}
        </ul>
      </nav>
      <span class="workspace">Workspace <strong>${slug}</strong></span>
      <button type="button" class="quiet" onClick=${onSignOut}>Sign out</button>
    </header>
    <main id="main" tabindex="-1">${children}</main>`;
}

function Page({ route, api, models }) {
  const [section, id] = route.parts;
  switch (section) {
    case 'runs':
      return id
        ? html`<${RunPage} key=${id} api=${api} runId=${id} models=${models} />`
        : html`<${RunsPage} api=${api} query=${route.query} />`;
    case 'sessions':
      return id
        ? html`<${SessionPage} key=${id} api=${api} sessionId=${id} />`
        : html`<${SessionsPage} api=${api} />`;
    case 'models':
      return html`<${ModelsPage} models=${models} />`;
    case 'new-run':
      return html`<${NewRunPage} api=${api} models=${models} />`;
    default:
      return html`<h1>Not found</h1>
        <p>This console has no page here. <a href="#/runs">Go to the runs</a>.</p>`;
  }
}

/** The model catalog, loaded once per sign-in: the models page, the new-run form and run costs use it. */
function useModels(api) {
  const [models, setModels] = useState({ status: 'loading', list: [], defaultModelId: null, error: null });
  useEffect(() => {
    if (!api) return undefined;
    const controller = new AbortController();
    api.get('/models', { signal: controller.signal }).then(
      (body) =>
        setModels({
          status: 'ready',
          list: body.models ?? [],
          defaultModelId: body.defaultModelId ?? null,
          error: null,
        }),
      (error) =>
        controller.signal.aborted || setModels({ status: 'failed', list: [], defaultModelId: null, error }),
    );
    return () => controller.abort();
  }, [api]);
  return models;
}

const EXPIRED_OAUTH =
  'Your OAuth sign-in has ended: its access token lasts one hour (or it was revoked). Sign in again.';

/**
 * The handoff id of an OAuth sign-in (`#/oauth-handoff/{id}`), taken out of the address at once so it
 * stays in neither the history nor a reload: it is redeemed once, by this page.
 */
function takeHandoff() {
  const [section, id] = currentRoute().parts;
  if (section !== 'oauth-handoff') return null;
  history.replaceState(null, '', `${location.pathname}${location.search}#/runs`);
  return id || '';
}

/** A signed-in credential still usable now; an expired OAuth sign-in is forgotten. */
function initialCredentials() {
  const stored = loadCredentials();
  if (stored && hasExpired(stored)) {
    clearCredentials();
    return { credentials: null, notice: EXPIRED_OAUTH };
  }
  return { credentials: stored, notice: null };
}

function App() {
  const base = useMemo(serviceBase, []);
  const [handoff] = useState(takeHandoff);
  const [initial] = useState(initialCredentials);
  const [credentials, setCredentials] = useState(initial.credentials);
  const [redeeming, setRedeeming] = useState(handoff !== null);
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = () => setRoute(currentRoute());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  const [notice, setNotice] = useState(initial.notice);
  const signedIn = (signed) => {
    saveCredentials(signed);
    setNotice(null);
    setCredentials(signed);
    if (currentRoute().parts[0] === 'sign-in') location.hash = '#/runs';
  };
  useEffect(() => {
    if (handoff === null) return;
    redeemHandoff(base, handoff).then(
      (signed) => {
        signedIn({ kind: 'oauth', ...signed });
        setRedeeming(false);
      },
      () => {
        setNotice(oauthSignInMessage('handoff_refused'));
        setRedeeming(false);
      },
    );
  }, []);
  const expire = () => {
    clearCredentials();
    setCredentials(null);
    setNotice(EXPIRED_OAUTH);
  };
  // An OAuth sign-in ends when its access token does: the console says so then, not at the next call.
  useEffect(() => {
    if (!credentials || credentials.kind !== 'oauth') return undefined;
    const timer = setTimeout(expire, Math.max(0, Date.parse(credentials.expiresAt) - Date.now()));
    return () => clearTimeout(timer);
  }, [credentials]);
  const api = useMemo(
    () =>
      credentials
        ? workspaceApi({
            base,
            ...credentials,
            onUnauthorized: () => {
              if (credentials.kind === 'oauth') return expire();
              clearCredentials();
              setCredentials(null);
              setNotice('The API key was refused (revoked or expired). Sign in again.');
            },
          })
        : null,
    [base, credentials],
  );
  const models = useModels(api);

  if (redeeming) {
    return html`<main id="main" class="sign-in">
      <${PageHeading}>Signing in…<//>
      <p role="status">Collecting your OAuth sign-in.</p>
    </main>`;
  }
  if (!api) {
    const [section] = route.parts;
    const workspace = section === 'sign-in' ? (route.query.get('workspace') ?? '') : '';
    const reason = section === 'sign-in' ? route.query.get('error') : null;
    return html`<${SignInPage}
      key=${`${notice ?? ''}|${reason ?? ''}`}
      base=${base}
      notice=${notice ?? (reason ? oauthSignInMessage(reason, workspace, base) : null)}
      workspace=${workspace}
      onSignedIn=${signedIn}
    />`;
  }
  const signOut = () => {
    clearCredentials();
    setCredentials(null);
    location.hash = '';
  };
  return html`<${Layout} slug=${api.slug} section=${route.parts[0] ?? 'runs'} onSignOut=${signOut}>
    <${Page} route=${route} api=${api} models=${models} />
  <//>`;
}

render(html`<${App} />`, document.getElementById('app'));
