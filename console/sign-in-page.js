import { discoverWorkspace, ApiError } from './api.js';
import { ErrorNotice, PageHeading, html } from './ui.js';
import { useState } from './preact-htm.js';

/**
 * Sign-in, two ways: a workspace API key (its workspace comes from `GET /api/oauth/userinfo`), or
 * OAuth through the workspace's console app (the service runs the flow: `console/oauth/start`).
 */
export function SignInPage({ base, notice, workspace: initialWorkspace = '', onSignedIn }) {
  const [key, setKey] = useState('');
  const [workspace, setWorkspace] = useState(initialWorkspace);
  const [error, setError] = useState(notice ?? null);
  const [busy, setBusy] = useState(false);

  async function submitKey(event) {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed === '') {
      setError('Enter a workspace API key.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const slug = await discoverWorkspace(base, trimmed);
      onSignedIn({ kind: 'api_key', key: trimmed, slug });
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.status === 401
          ? 'This key was refused: check that it is a current workspace API key.'
          : caught,
      );
      setBusy(false);
    }
  }

  function submitOAuth(event) {
    event.preventDefault();
    const slug = workspace.trim();
    if (slug === '') {
      setError('Enter the workspace to sign in to with OAuth.');
      return;
    }
    setBusy(true);
    setError(null);
    location.assign(`${base}/console/oauth/start?${new URLSearchParams({ workspace: slug })}`);
  }

  return html`<main id="main" class="sign-in">
    <${PageHeading}>Sign in to the agent-runs console<//>
    ${
      error && typeof error === 'object' && !(error instanceof Error)
        ? html`<div class="notice notice-error" role="alert">${error}</div>`
        : html`<${ErrorNotice} error=${error} />`
    }
    <section>
      <h2>With an API key</h2>
      <p>
        Use a workspace API key (it starts with <code>svc_</code>). It stays in this browser tab only and is
        forgotten when the tab closes.
      </p>
      <form onSubmit=${submitKey} novalidate>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck="false"
          required
          value=${key}
          onInput=${(event) => setKey(event.currentTarget.value)}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
        </div>
      </form>
    </section>
    <section class="sign-in-oauth">
      <h2>With your account (OAuth)</h2>
      <p>
        Sign in with your email and password on the workspace's sign-in page and allow the console. The access
        token stays in this browser tab only and lasts one hour.
      </p>
      <form onSubmit=${submitOAuth} novalidate>
        <label for="oauth-workspace">Workspace</label>
        <input
          id="oauth-workspace"
          name="workspace"
          type="text"
          autocomplete="organization"
          autocapitalize="off"
          spellcheck="false"
          required
          aria-describedby="oauth-workspace-hint"
          value=${workspace}
          onInput=${(event) => setWorkspace(event.currentTarget.value)}
        />
        <p id="oauth-workspace-hint" class="hint">The workspace's slug, as in its API paths.</p>
        <div class="actions">
          <button type="submit" disabled=${busy}>Sign in with OAuth</button>
        </div>
      </form>
    </section>
  </main>`;
}

/** What the console says for each reason the OAuth sign-in came back without a token. */
export function oauthSignInMessage(reason, workspace, base) {
  const named = workspace ? `“${workspace}”` : 'this workspace';
  switch (reason) {
    case 'workspace_missing':
      return 'Enter the workspace to sign in to with OAuth.';
    case 'unknown_workspace':
      return `There is no workspace ${named}. Check its slug.`;
    case 'oauth_apps_plan':
      return `The plan of workspace ${named} does not include OAuth applications. Sign in with an API key.`;
    case 'no_console_app': {
      const callback = `${base}/console/callback`;
      const route = `POST /admin/v1/workspaces/${workspace || '{slug}'}/oauth-apps`;
      return html`<p>
          Workspace ${named} has no OAuth app for the console, so OAuth sign-in is not available there. Sign
          in with an API key, or ask an operator to add one.
        </p>
        <p>
          ${'An operator registers an OAuth app of the workspace whose redirect URIs include '}
          <code>${callback}</code
          >${', for example with '}<code>${route}</code>${" (see the console's documentation)."}
        </p>`;
    }
    case 'access_denied':
      return 'You did not allow the console to use your account, so you are not signed in. Sign in again to allow it, or use an API key.';
    case 'bad_state':
      return 'This sign-in could not be verified: it was started in another browser or tab, took longer than 10 minutes, or cookies are blocked. Sign in again.';
    case 'handoff_refused':
      return 'This sign-in has expired or was already used: the console collects it once, within 60 seconds. Sign in again.';
    case 'exchange_failed':
      return 'The sign-in could not be completed: the authorization code was refused or had expired. Sign in again.';
    default:
      return 'The authorization server did not sign you in. Sign in again.';
  }
}
