import { discoverWorkspace, ApiError } from './api.js';
import { ErrorNotice, PageHeading, html } from './ui.js';
import { useState } from './preact-htm.js';

/** Sign-in with a workspace API key; the key's workspace comes from `GET /api/oauth/userinfo`. */
export function SignInPage({ base, notice, onSignedIn }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState(notice ?? null);
  const [busy, setBusy] = useState(false);

  async function submit(event) {
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
      onSignedIn({ key: trimmed, slug });
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.status === 401
          ? 'This key was refused: check that it is a current workspace API key.'
          : caught,
      );
      setBusy(false);
    }
  }

  return html`<main id="main" class="sign-in">
    <${PageHeading}>Sign in to the agent-runs console<//>
    <p>
      Use a workspace API key (it starts with <code>svc_</code>). It stays in this browser tab only and is
      forgotten when the tab closes.
    </p>
    <${ErrorNotice} error=${error} />
    <form onSubmit=${submit} novalidate>
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
  </main>`;
}
