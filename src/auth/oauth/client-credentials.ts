/** The client id and secret a token or revocation request authenticates with. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * From `Authorization: Basic` (RFC 6749 §2.3.1: each part form-encoded, then base64) or the body's
 * `client_id` and `client_secret`. Undefined when the request carries no client secret: every app is
 * confidential, so that is a failed client authentication.
 */
export function clientCredentialsOf(
  authorization: string | undefined,
  body: Record<string, unknown>,
): ClientCredentials | undefined {
  const basic = authorization === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (basic?.[1]) {
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
  const { client_id: clientId, client_secret: clientSecret } = body;
  if (typeof clientId === 'string' && typeof clientSecret === 'string' && clientId && clientSecret) {
    return { clientId, clientSecret };
  }
  return undefined;
}
