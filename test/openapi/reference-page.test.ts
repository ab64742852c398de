import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { findChromium, launchChromium } from '../support/chromium.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import type { OpenApiJson } from './document-conformance.ts';
import { embeddedOnly } from '../support/deployment.ts';

const found = findChromium();
const skip = 'skip' in found ? found.skip : false;
if (skip) console.log(`# SKIPPED the API reference page browser tests: ${skip}`);

/** Where the test leaves its screenshot of the page, for a person to look at. */
export const SCREENSHOT = join(tmpdir(), 'agent-runs-api-reference.png');

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe(
  'GET /docs: the API reference page in a browser',
  { skip, timeout: 120_000, ...embeddedOnly('the page renders the document, the same on every deployment') },
  () => {
    let server: TestServer;
    let browser: Browser;
    let document: OpenApiJson;
    before(async () => {
      server = await startTestServer();
      document = (await server.request('GET', '/openapi.json')).body;
      if ('executablePath' in found) browser = await launchChromium(found.executablePath);
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it('renders every operation of the document (method, path, summary, auth) grouped by tag, without JavaScript', async () => {
      const context = await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1280, height: 900 },
      });
      try {
        const page = await context.newPage();
        const requested: string[] = [];
        page.on('request', (request) => requested.push(request.url()));
        const response = await page.goto(`${server.baseUrl}/docs`);
        assert.equal(response?.status(), 200);
        assert.equal(await page.title(), 'agent-runs API reference');
        assert.deepEqual(requested, [`${server.baseUrl}/docs`], 'the page loads nothing else');

        const operations = Object.entries<Record<string, OpenApiJson>>(document.paths).flatMap(
          ([path, item]) =>
            METHODS.filter((method) => item[method]).map((method) => ({
              method,
              path,
              operation: item[method] as OpenApiJson,
            })),
        );
        assert.equal(await page.locator('section.operation').count(), operations.length);
        for (const { method, path, operation } of operations) {
          const section = page
            .locator('section.operation')
            .filter({ has: page.locator('h3 .method', { hasText: new RegExp(`^${method.toUpperCase()}$`) }) })
            .filter({
              has: page.locator('h3 code.path', { hasText: new RegExp(`^${escapeRegExp(path)}$`) }),
            });
          assert.equal(await section.count(), 1, `${method} ${path}`);
          assert.equal(await section.locator('.summary').textContent(), operation.summary);
          assert.match((await section.locator('.facts').textContent()) ?? '', /Auth/);
        }
        for (const tag of document.tags as Array<{ name: string }>) {
          assert.ok(await page.locator(`section#tag-${tag.name} h2`).isVisible(), `the ${tag.name} section`);
        }
        await page.screenshot({ path: SCREENSHOT });
      } finally {
        await context.close();
      }
    });

    it('shows each operation its scope, its parameters, its bodies and its errors', async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      try {
        const page = await context.newPage();
        await page.goto(`${server.baseUrl}/docs`);
        const createRun = page.locator('section#op-createRun');
        assert.equal(await createRun.locator('.facts code.scope').textContent(), 'runs:write');
        assert.match((await createRun.locator('h4', { hasText: 'Request body' }).count()).toString(), /^1$/);
        assert.ok(await createRun.locator('ul.fields code.name', { hasText: /^prompt$/ }).count());
        const errors = await createRun.locator('table.errors tbody tr').allTextContents();
        for (const code of ['invalid_request', 'insufficient_scope', 'rate_limit_exceeded']) {
          assert.ok(
            errors.some((row) => row.includes(code)),
            `${code} among the errors`,
          );
        }
        const stream = page.locator('section#op-streamRunEvents');
        assert.ok(await stream.locator('a[href="#schema-RunEvent"]').count());
        assert.ok(await stream.locator('td code.name', { hasText: 'Last-Event-ID' }).count());
        assert.ok(await page.locator('section#schema-ResultEvent').count());
      } finally {
        await context.close();
      }
    });

    it('every link on the page leads to a section of it, or to the JSON document', async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      try {
        const page = await context.newPage();
        await page.goto(`${server.baseUrl}/docs`);
        const hrefs = await page
          .locator('a[href]')
          .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
        const targets = new Set(
          await page.locator('[id]').evaluateAll((nodes) => nodes.map((node) => node.id)),
        );
        const broken = [...new Set(hrefs)].filter(
          (href) => href !== 'openapi.json' && !(href?.startsWith('#') && targets.has(href.slice(1))),
        );
        assert.deepEqual(broken, []);
      } finally {
        await context.close();
      }
    });

    it('is served with the pages’ security headers and is cacheable', async () => {
      const response = await fetch(`${server.baseUrl}/docs`);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      assert.match(response.headers.get('cache-control') ?? '', /^public/);
      assert.ok(response.headers.get('etag'));
      await response.arrayBuffer();
    });
  },
);
