import { OAUTH_SCOPES, type OAuthScope } from '../../domain/oauth-scopes.ts';
import { html } from './html.ts';
import { page } from './layout.ts';

/** What every authorization page says about the request: which app asks, in which workspace. */
export interface RequestContext {
  appName: string;
  workspaceName: string;
  requestId: string;
  csrfToken: string;
}

/** The sign-in form (fields `email` and `password`), with the last attempt's error when there was one. */
export function signInPage(
  context: RequestContext,
  options: { email?: string; error?: string } = {},
): string {
  const { error } = options;
  return page(
    `Sign in – ${context.appName}`,
    html`<h1>Sign in</h1>
      <p>
        to allow <strong>${context.appName}</strong> to use workspace
        <strong>${context.workspaceName}</strong>.
      </p>
      ${error ? html`<p class="error" role="alert" id="sign-in-error">${error}</p>` : ''}
      <form method="post" action="sign-in">
        <input type="hidden" name="request" value="${context.requestId}" />
        <input type="hidden" name="csrf" value="${context.csrfToken}" />
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          ${options.email ? '' : html`autofocus`}
          value="${options.email ?? ''}"
          ${error ? html` aria-describedby="sign-in-error" aria-invalid="true"` : ''}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          ${options.email ? html`autofocus` : ''}
        />
        <div class="actions"><button class="primary" type="submit">Sign in</button></div>
      </form>`,
  );
}

/** The consent form: the scopes in words, a checkbox per agent (`agentIds`), and `decision` allow or deny. */
export function consentPage(
  context: RequestContext,
  details: {
    userEmail: string;
    scopes: readonly OAuthScope[];
    agents: readonly { id: string; name: string }[];
    error?: string;
  },
): string {
  const agentChoices =
    details.agents.length === 0
      ? html`<p class="muted">The workspace has no agents yet: the app may run any it gets later.</p>`
      : html`<p class="muted" id="agents-help">
            Choose the agents the app may run. If you choose none, it may run every agent of the workspace.
          </p>
          ${details.agents.map(
            (agent) =>
              html`<label
                ><input type="checkbox" name="agentIds" value="${agent.id}" aria-describedby="agents-help" />
                ${agent.name}</label
              > `,
          )}`;
  return page(
    `Allow ${context.appName}?`,
    html`<h1>Allow ${context.appName}?</h1>
      <p>
        Signed in as <strong>${details.userEmail}</strong> in workspace
        <strong>${context.workspaceName}</strong>.
      </p>
      ${details.error ? html`<p class="error" role="alert">${details.error}</p>` : ''}
      <p><strong>${context.appName}</strong> asks to:</p>
      <ul class="scopes">
        ${details.scopes.map(
          (scope) =>
            html`<li>${OAUTH_SCOPES[scope]} <span class="muted">(<code>${scope}</code>)</span></li> `,
        )}
      </ul>
      <form method="post" action="consent">
        <input type="hidden" name="request" value="${context.requestId}" />
        <input type="hidden" name="csrf" value="${context.csrfToken}" />
        <fieldset>
          <legend>Agents</legend>
          ${agentChoices}
        </fieldset>
        <div class="actions">
          <button class="primary" type="submit" name="decision" value="allow">Allow</button>
          <button type="submit" name="decision" value="deny">Deny</button>
        </div>
      </form>
      <form method="post" action="sign-out" class="switch-account">
        <input type="hidden" name="request" value="${context.requestId}" />
        <input type="hidden" name="csrf" value="${context.csrfToken}" />
        <p class="muted">
          Not ${details.userEmail}? <button type="submit" class="link">Sign in as someone else</button>
        </p>
      </form>`,
  );
}

/** A page that explains why the flow cannot go on, and what to do. */
export function messagePage(title: string, message: string): string {
  return page(
    title,
    html`<h1>${title}</h1>
      <p role="alert">${message}</p>`,
  );
}
