import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { presentedCredentials } from '../../src/auth/oauth/client-credentials.ts';
import {
  generateAccessToken,
  generateRefreshToken,
  hashSecret,
  secretMatches,
} from '../../src/auth/oauth/token-secrets.ts';
import { hashPassword, verifyPassword } from '../../src/auth/password-hash.ts';
import { parseScopeParameter } from '../../src/domain/oauth-scopes.ts';

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('OAuth secrets and parameters', () => {
  it('access tokens are svc_at_ plus 40 base62 characters; refresh tokens carry svc_rt_', () => {
    assert.match(generateAccessToken(), /^svc_at_[0-9A-Za-z]{40}$/);
    assert.match(generateRefreshToken(), /^svc_rt_[0-9A-Za-z]{48}$/);
    assert.notEqual(generateAccessToken(), generateAccessToken());
  });

  it('a secret matches only its own hash', () => {
    const hash = hashSecret('s3cret');
    assert.equal(secretMatches('s3cret', hash), true);
    assert.equal(secretMatches('s3cret!', hash), false);
    assert.equal(secretMatches('s3cret', 'not-hex'), false);
  });

  it('client credentials come from Basic (form-encoded parts) or from the form, and say which way they came (RFC 6749 §2.3.1)', () => {
    assert.deepEqual(presentedCredentials(basic('app_1', 'a b+c'), {}), {
      method: 'header',
      credentials: { clientId: 'app_1', clientSecret: 'a b+c' },
    });
    assert.deepEqual(presentedCredentials(undefined, { client_id: 'app_1', client_secret: 'x' }), {
      method: 'form',
      credentials: { clientId: 'app_1', clientSecret: 'x' },
    });
    assert.deepEqual(presentedCredentials(undefined, { client_id: 'app_1' }), { method: 'none' });
    assert.deepEqual(presentedCredentials(undefined, { client_secret: 'x' }), {
      method: 'form',
      credentials: undefined,
    });
    assert.deepEqual(presentedCredentials(basic('app_1', ''), {}), {
      method: 'header',
      credentials: undefined,
    });
    assert.deepEqual(
      presentedCredentials('Basic bm9jb2xvbg==', {}),
      { method: 'header', credentials: undefined },
      'no colon',
    );
    assert.deepEqual(presentedCredentials('Bearer abc', { client_id: 'app_1' }), {
      method: 'header',
      credentials: undefined,
    });
    assert.deepEqual(
      presentedCredentials(basic('app_1', 'x'), { client_id: 'app_1', client_secret: 'x' }),
      { method: 'several' },
      'one method per request (RFC 6749 §2.3)',
    );
  });

  it('a scope parameter yields known scopes once, in catalog order, and the unknown ones apart', () => {
    assert.deepEqual(parseScopeParameter('runs:write  models:read runs:write x:y'), {
      scopes: ['models:read', 'runs:write'],
      unknown: ['x:y'],
    });
    assert.deepEqual(parseScopeParameter(''), { scopes: [], unknown: [] });
  });

  it('passwords are hashed with argon2id and verified; older scrypt hashes still verify', async () => {
    const hash = await hashPassword('correct horse');
    assert.match(hash, /^\$argon2id\$/);
    assert.equal(await verifyPassword('correct horse', hash), true);
    assert.equal(await verifyPassword('wrong horse', hash), false);
    const salt = randomBytes(16);
    const legacy = `scrypt$${salt.toString('base64url')}$${scryptSync('old pass', salt, 32).toString('base64url')}`;
    assert.equal(await verifyPassword('old pass', legacy), true);
    assert.equal(await verifyPassword('new pass', legacy), false);
    assert.equal(await verifyPassword('x', 'garbage'), false);
  });
});
