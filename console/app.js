import { render, useEffect, useMemo, useState } from './preact-htm.js';
import { serviceBase, workspaceApi } from './api.js';
import { clearCredentials, loadCredentials, saveCredentials } from './credentials.js';
import { html } from './ui.js';
import { SignInPage } from './sign-in-page.js';
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

function App() {
  const base = useMemo(serviceBase, []);
  const [credentials, setCredentials] = useState(loadCredentials);
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = () => setRoute(currentRoute());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  const [notice, setNotice] = useState(null);
  const api = useMemo(
    () =>
      credentials
        ? workspaceApi({
            base,
            ...credentials,
            onUnauthorized: () => {
              clearCredentials();
              setCredentials(null);
              setNotice('The API key was refused (revoked or expired). Sign in again.');
            },
          })
        : null,
    [base, credentials],
  );
  const models = useModels(api);

  if (!api) {
    return html`<${SignInPage}
      base=${base}
      notice=${notice}
      onSignedIn=${(signedIn) => {
        saveCredentials(signedIn);
        setNotice(null);
        setCredentials(signedIn);
      }}
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
