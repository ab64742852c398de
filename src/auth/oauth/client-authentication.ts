import { isWellFormedId } from '../../domain/ids.ts';
import type { OAuthClientRecord, OAuthStore } from '../../engine/ports.ts';
import { presentedCredentials, type ClientCredentials } from './client-credentials.ts';
import { secretMatches } from './token-secrets.ts';

/** How a failed client authentication is answered (RFC 6749 §5.2). */
export interface ClientRefusal {
  status: 400 | 401;
  error: 'invalid_client' | 'invalid_request';
  description: string;
  /** Whether to send `WWW-Authenticate: Basic` (the schemes the endpoint takes). */
  challenge: boolean;
}

/** A client that proved its secret, and how a failure is answered for the way it did (should it vanish). */
export interface AuthenticatedClient {
  record: OAuthClientRecord;
  credentials: ClientCredentials;
  refusal: ClientRefusal;
}

export type ClientAuthentication =
  ({ ok: true } & AuthenticatedClient) | { ok: false; refusal: ClientRefusal };

/**
 * Authenticates the client of a token or revocation request. Every app is confidential, so a secret
 * is required. The answer to a failure follows how the secret came (RFC 6749 §5.2, and our ruling):
 * through the `Authorization` header, `401` with `WWW-Authenticate: Basic`; in the form, `400`; no
 * secret at all, `401` with the challenge naming the scheme to use. Unknown client and wrong secret
 * are answered alike.
 */
export async function authenticateOAuthClient(
  store: OAuthStore,
  authorization: string | undefined,
  body: Record<string, unknown>,
): Promise<ClientAuthentication> {
  const presented = presentedCredentials(authorization, body);
  switch (presented.method) {
    case 'several':
      return {
        ok: false,
        refusal: {
          status: 400,
          error: 'invalid_request',
          description:
            'Invalid request: use one client authentication method (HTTP Basic or the form), not both',
          challenge: false,
        },
      };
    case 'none':
      return {
        ok: false,
        refusal: inHeader(
          'Invalid client: every app is a confidential client; send client_id and client_secret (HTTP Basic or in the form)',
        ),
      };
    case 'header':
    case 'form': {
      const failed = presented.method === 'header' ? inHeader : inForm;
      const { credentials } = presented;
      if (!credentials) {
        return {
          ok: false,
          refusal: failed(
            presented.method === 'header'
              ? 'Invalid client: the Authorization header is not Basic client credentials'
              : 'Invalid client: client_secret needs its client_id',
          ),
        };
      }
      const refusal = failed('Invalid client: client authentication failed');
      const record = await verified(store, credentials);
      return record ? { ok: true, record, credentials, refusal } : { ok: false, refusal };
    }
  }
}

async function verified(
  store: OAuthStore,
  { clientId, clientSecret }: ClientCredentials,
): Promise<OAuthClientRecord | undefined> {
  if (!isWellFormedId('oauthApp', clientId)) return undefined;
  const client = await store.findClient(clientId);
  return client && secretMatches(clientSecret, client.clientSecretHash) ? client : undefined;
}

function inHeader(description: string): ClientRefusal {
  return { status: 401, error: 'invalid_client', description, challenge: true };
}

function inForm(description: string): ClientRefusal {
  return { status: 400, error: 'invalid_client', description, challenge: false };
}
