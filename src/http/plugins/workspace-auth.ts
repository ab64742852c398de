import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { authenticate, credentialFrom, type AuthFailure } from '../../auth/authenticate.ts';
import { OAUTH_ACCESS_TOKEN_PREFIX } from '../../auth/api-key-secret.ts';
import type { Principal } from '../../auth/principal.ts';
import { assertNever } from '../../domain/assert-never.ts';
import type { OAuthScope } from '../../domain/oauth-scopes.ts';
import type { ApiKeyStore, OAuthStore, WorkspaceStore } from '../../engine/ports.ts';
import { sendMissingScopes } from './required-scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the workspace-auth hook on every workspace route. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** The scopes an OAuth access token needs for this route (API keys need none). */
    scopes?: readonly OAuthScope[];
  }
}

export interface WorkspaceAuthOptions {
  apiKeys: ApiKeyStore;
  oauth: OAuthStore;
  workspaces: Pick<WorkspaceStore, 'findBySlug'>;
  /** Routes under `/workspaces/:workspaceSlug` check that the slug is the credential's workspace. */
  checkSlug: boolean;
  /** The path prefix a slug-mismatch hint names (the workspace API's by default). */
  workspacePath?: (slug: string) => string;
}

/**
 * onRequest hook for routes that take a workspace credential: establishes the principal, checks that
 * the URL's slug is the credential's workspace and that an access token has the route's scopes. Each
 * failure answers with exactly the body the spec gives it.
 */
export function workspaceAuth(options: WorkspaceAuthOptions): onRequestAsyncHookHandler {
  return async function workspaceAuthHook(request: FastifyRequest, reply: FastifyReply) {
    const credential = credentialFrom(request.headers);
    const outcome = await authenticate(credential, options);
    if (!outcome.ok) return sendAuthFailure(reply, outcome, credential);

    if (options.checkSlug) {
      const { workspaceSlug } = request.params as { workspaceSlug: string };
      const own = outcome.principal.workspace.slug;
      if (workspaceSlug !== own) {
        const path = options.workspacePath?.(own) ?? `/api/v1/workspaces/${own}`;
        const hint = `this credential belongs to workspace '${own}': use ${path}`;
        const exists = (await options.workspaces.findBySlug(workspaceSlug)) !== undefined;
        return reply.status(404).send(
          exists
            ? {
                error: 'Workspace path mismatch',
                code: 'not_found',
                message: `the credential is not valid for workspace '${workspaceSlug}'`,
                hint,
              }
            : { error: 'not_found', message: `workspace '${workspaceSlug}' not found`, hint },
        );
      }
    }
    if (outcome.principal.kind === 'oauth_token') {
      const sent = sendMissingScopes(reply, outcome.principal, request.routeOptions.config.scopes);
      if (sent) return sent;
    }
    request.principal = outcome.principal;
  };
}

/**
 * Authenticates every request of a plugin scope with `workspaceAuth` (its first onRequest hook, so
 * a request without a valid credential is refused before its body is read): the scope's requests
 * then carry their `principal`.
 */
export function authenticateScope(
  app: FastifyInstance,
  stores: Pick<WorkspaceAuthOptions, 'apiKeys' | 'oauth' | 'workspaces'>,
  check: Pick<WorkspaceAuthOptions, 'checkSlug' | 'workspacePath'>,
): void {
  app.decorateRequest('principal', null);
  app.addHook(
    'onRequest',
    workspaceAuth({ apiKeys: stores.apiKeys, oauth: stores.oauth, workspaces: stores.workspaces, ...check }),
  );
}

function sendAuthFailure(reply: FastifyReply, failure: AuthFailure, credential: string | undefined) {
  switch (failure.reason) {
    case 'missing':
      return reply.status(401).header('www-authenticate', 'Bearer').send({
        error: 'Unauthorized',
        message: 'missing credential: send Authorization: Bearer <key> or X-API-Key: <key>',
      });
    case 'invalid': {
      const what = credential?.startsWith(OAUTH_ACCESS_TOKEN_PREFIX) ? 'access token' : 'API key';
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer error="invalid_token"')
        .send({
          error: `Invalid ${what}`,
          code: 'unauthorized',
          message: `the ${what} is unknown, expired or revoked`,
        });
    }
    case 'wrong_usage':
      return reply.status(403).send({
        error: 'API key usage not permitted',
        code: 'forbidden',
        message: `this API key has usage '${failure.usage}', which cannot call the public API`,
        hint: "create a key with usage 'developer_api' for API access",
      });
    case 'plan_lacks_api_keys':
      return reply.status(403).send({
        error: 'api_keys_plan',
        message: `the plan of workspace '${failure.workspaceSlug}' does not include the API-keys feature`,
      });
    case 'plan_lacks_oauth_apps':
      return reply.status(403).send({
        error: 'oauth_apps_plan',
        message: `the plan of workspace '${failure.workspaceSlug}' does not include the OAuth-applications feature`,
      });
    default:
      return assertNever(failure);
  }
}
