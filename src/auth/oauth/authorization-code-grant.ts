import OAuth2Server from '@node-oauth/oauth2-server';
import { createRequire } from 'node:module';

/** The library's own `authorization_code` grant type, which its package does not export by name. */
type LibraryCodeGrantType = new (options: OAuth2Server.TokenOptions) => Pick<
  OAuth2Server.AbstractGrantType,
  keyof OAuth2Server.AbstractGrantType
> & {
  validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode): void;
};

const LibraryAuthorizationCodeGrant = createRequire(import.meta.url)(
  '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js',
) as LibraryCodeGrantType;

/**
 * The library's `authorization_code` grant, except that a `redirect_uri` other than the one the code
 * was issued for is `invalid_grant`, as RFC 6749 §5.2 names it (the library answers `invalid_request`).
 * A missing one stays `invalid_request`: a required parameter is absent.
 */
export class AuthorizationCodeGrant extends LibraryAuthorizationCodeGrant {
  override validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode): void {
    const sent: unknown = request.body.redirect_uri;
    if (code.redirectUri && typeof sent === 'string' && sent !== '' && sent !== code.redirectUri) {
      throw new OAuth2Server.InvalidGrantError(
        'Invalid grant: `redirect_uri` differs from the one of the authorization request',
      );
    }
    super.validateRedirectUri(request, code);
  }
}
