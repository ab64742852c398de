import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** The page's asset URLs (scripts, module preloads, the stylesheet), resolved against the page. */
function assetUrls(page: string, pageUrl: string): URL[] {
  return [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, href]) => new URL(href as string, pageUrl));
}

/** `import … from '…'` and `export … from '…'` specifiers of a module's source. */
function importSpecifiers(source: string): string[] {
  return [...source.matchAll(/(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?['"]([^'"]+)['"]/g)].map(
    ([, specifier]) => specifier as string,
  );
}

/** XML namespace names are identifiers that only look like URLs: nothing is fetched from them. */
const NAMESPACE_URIS = new Set(['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xlink']);

describe('the console is served as static files under a strict policy (extensions §12)', () => {
  let server: TestServer;
  let page: string;
  let pageHeaders: Headers;
  let assets: URL[];

  before(async () => {
    server = await startTestServer();
    const response = await fetch(`${server.baseUrl}/console`);
    assert.equal(response.status, 200);
    pageHeaders = response.headers;
    page = await response.text();
    assets = assetUrls(page, `${server.baseUrl}/console`);
  });

  after(() => server?.close());

  it('GET /console answers the HTML page with a strict Content-Security-Policy and no caching without revalidation', () => {
    assert.match(pageHeaders.get('content-type') ?? '', /^text\/html/);
    assert.equal(pageHeaders.get('cache-control'), 'no-cache');
    const policy = new Map(
      (pageHeaders.get('content-security-policy') ?? '').split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    assert.equal(policy.get('default-src'), "'none'");
    assert.equal(policy.get('script-src'), "'self'");
    assert.equal(policy.get('style-src'), "'self'");
    assert.equal(policy.get('connect-src'), "'self'");
    assert.equal(policy.get('frame-ancestors'), "'none'");
    assert.equal(policy.get('base-uri'), "'none'");
    assert.equal(policy.get('object-src'), "'none'");
    for (const [name, value] of policy)
      assert.doesNotMatch(value, /unsafe-inline|unsafe-eval|\*|https?:/, name);
    assert.equal(pageHeaders.get('x-frame-options'), 'DENY');
    assert.equal(pageHeaders.get('x-content-type-options'), 'nosniff');
    assert.doesNotMatch(page, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(page, /<style|\sstyle=/, 'no inline style');
  });

  it('every asset is served under a content-hashed path, cacheable for a year and immutable', async () => {
    assert.ok(assets.length >= 3, `assets: ${assets.join(', ')}`);
    const versions = new Set<string>();
    for (const url of assets) {
      const match = /^\/console\/assets\/([0-9a-f]{20})\/[\w.-]+\.(js|css)$/.exec(url.pathname);
      assert.ok(match, `hashed asset path: ${url.pathname}`);
      versions.add(match[1] as string);
      const response = await fetch(url);
      assert.equal(response.status, 200, url.pathname);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(
        response.headers.get('content-type') ?? '',
        match[2] === 'js' ? /^text\/javascript/ : /^text\/css/,
      );
      await response.arrayBuffer();
    }
    assert.equal(versions.size, 1, 'one version for all the assets');
  });

  it('an unknown asset, an unknown version or a path outside the assets is 404 not_found, never cached', async () => {
    const known = assets.find((url) => url.pathname.endsWith('/app.js'));
    assert.ok(known);
    const version = known.pathname.split('/')[3] as string;
    for (const path of [
      `/console/assets/${version}/missing.js`,
      `/console/assets/${'0'.repeat(20)}/app.js`,
      `/console/assets/${version}/..%2Fpackage.json`,
      `/console/assets/${version}/%2E%2E%2F%2E%2E%2Fpackage.json`,
    ]) {
      const response = await server.request('GET', path);
      assert.equal(response.status, 404, path);
      assert.equal(response.body.error, 'not_found', path);
      assert.equal(response.headers.get('cache-control'), 'no-store', path);
    }
  });

  it('no served file refers to another origin, and every module import is relative (works offline, no bundler)', async () => {
    const origin = new URL(server.baseUrl).origin;
    const seen = new Set<string>();
    const queue = [...assets];
    for (let url = queue.shift(); url; url = queue.shift()) {
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      assert.equal(url.origin, origin, `${url.href} is on this origin`);
      const source = await (await fetch(url)).text();
      for (const found of source.match(/\b(?:https?:|wss?:)?\/\/[\w.-]+\.[a-z]{2,}[^\s'"`)]*/gi) ?? []) {
        if (!found.startsWith('http') && !found.startsWith('ws')) continue;
        assert.ok(NAMESPACE_URIS.has(found), `${url.pathname} refers to ${found}`);
      }
      if (url.pathname.endsWith('.js')) {
        for (const specifier of importSpecifiers(source)) {
          assert.match(specifier, /^\.\//, `${url.pathname} imports ${specifier}`);
          queue.push(new URL(specifier, url));
        }
      }
    }
    for (const url of assetUrls(page, `${server.baseUrl}/console`)) assert.equal(url.origin, origin);
    assert.ok(seen.size >= 10, `followed ${seen.size} files`);
  });
});
