import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const REQUEST_EXPIRED = /<h1>Request expired<\/h1>/;

/** The pages read their form and query fields through one schema: what is not a form reads as no fields. */
describe('OAuth page forms without fields', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  for (const [method, path] of [
    ['POST', '/oauth/sign-in'],
    ['POST', '/oauth/sign-out'],
    ['POST', '/oauth/consent'],
    ['GET', '/oauth/consent'],
  ] as const) {
    it(`${method} ${path} without a body or query is the "request expired" page (400), never a 500`, async () => {
      const response = await fetch(`${server.baseUrl}${path}`, { method });
      assert.equal(response.status, 400);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await response.text(), REQUEST_EXPIRED);
    });
  }
});
