/** The client id and secret a token or revocation request authenticates with. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * How a request presents its client credentials (RFC 6749 §2.3.1), which decides how a failure is
 * answered (§5.2): in the `Authorization` header (`header`; `credentials` undefined when it is not
 * usable Basic credentials), as `client_secret` in the form (`form`; undefined without a
 * `client_id`), both at once (`several`, which §2.3 forbids), or not at all (`none`).
 */
export type PresentedCredentials =
  { method: 'header' | 'form'; credentials: ClientCredentials | undefined } | { method: 'several' | 'none' };

export function presentedCredentials(
  authorization: string | undefined,
  body: Record<string, unknown>,
): PresentedCredentials {
  const inForm = body.client_secret !== undefined;
  if (authorization !== undefined) {
    return inForm
      ? { method: 'several' }
      : { method: 'header', credentials: basicCredentials(authorization) };
  }
  if (!inForm) return { method: 'none' };
  const { client_id: clientId, client_secret: clientSecret } = body;
  const usable = typeof clientId === 'string' && typeof clientSecret === 'string' && clientId && clientSecret;
  return { method: 'form', credentials: usable ? { clientId, clientSecret } : undefined };
}

/** `Authorization: Basic` with each part form-encoded, then base64 (RFC 6749 §2.3.1: `_` may arrive as `%5F`). */
function basicCredentials(authorization: string): ClientCredentials | undefined {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (!basic?.[1]) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const clientId = decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' '));
    const clientSecret = decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' '));
    return clientId && clientSecret ? { clientId, clientSecret } : undefined;
  } catch {
    return undefined;
  }
}
