import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { TestContext } from 'node:test';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { readAll, type SseFrame } from '../support/sse-client.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';

/** Generous, for a slow one-core machine: every wait is on something the page shows; this only bounds it. */
export const WAIT_MS = 60_000;

/** The offline model that echoes the prompt about 20 ms per word (the run view can be watched growing). */
export const SLOW_MODEL = 'mock/slow-echo';
/** The same without pauses. */
export const ECHO_MODEL = 'mock/echo';
/** Catalog pricing of the slow model, so a run's view can show a cost. */
export const SLOW_PRICING = { inputPer1MUsd: 3, outputPer1MUsd: 15, cacheReadPer1MUsd: 0.3 };

/** Ephemeral specs need one. */
export const SYSTEM_PROMPT = 'You are the console test agent.';

/** A client-resolved tool the mock model calls on `call lookup {…}`. */
export const LOOKUP_TOOL = {
  kind: 'local',
  name: 'lookup',
  description: 'Looks a city up.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** The service in dev mode (offline mock models) with one workspace, its API key and a priced slow model. */
export interface ConsoleFixture {
  server: TestServer;
  slug: string;
  key: string;
  ws: string;
  /** Starts a run over the API; returns its id. */
  startRun(body: Record<string, unknown>): Promise<string>;
  /** Every frame of a run's stream, read over the API until the server closes it. */
  framesOf(runId: string): Promise<SseFrame[]>;
  /** `path` under the workspace, as JSON, with the key. */
  get(path: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary JSON
  post(path: string, body?: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary JSON
  close(): Promise<void>;
}

export async function startConsoleFixture(slug: string): Promise<ConsoleFixture> {
  const server = await startTestServer({ dev: true });
  try {
    const offering = await server.admin('POST', '/offerings', {
      provider: 'mock',
      vendorModelId: 'slow-echo',
      pricing: SLOW_PRICING,
    });
    assert.equal(offering.status, 201, JSON.stringify(offering.body));
    const { key, ws } = await createWorkspaceWithKey(server, slug);
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await server.request(method, `${ws}${path}`, {
        headers: bearer(key),
        ...(body !== undefined && { body }),
      });
      assert.ok(
        response.status < 300,
        `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`,
      );
      return response.body;
    };
    return {
      server,
      slug,
      key,
      ws,
      startRun: async (body) =>
        (await call('POST', '/agent-runs', { systemPrompt: SYSTEM_PROMPT, ...body })).runId,
      framesOf: (runId) => readAll(`${server.baseUrl}${ws}/agent-runs/${runId}/stream`, bearer(key)),
      get: (path) => call('GET', path),
      post: (path, body) => call('POST', path, body),
      close: () => server.close(),
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** A fresh browser profile (own session storage), closed when the test ends; CSP reports fail the test. */
export async function newContext(
  t: TestContext,
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; violations: string[] }> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(WAIT_MS);
  const violations: string[] = [];
  context.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  context.on('weberror', (error) => violations.push(String(error.error())));
  t.after(() => context.close());
  return { context, violations };
}

/** Opens the console and signs in with the key, as a person would; waits for the runs page. */
export async function signIn(page: Page, fixture: ConsoleFixture): Promise<void> {
  const response = await page.goto(`${fixture.server.baseUrl}/console`);
  assert.equal(response?.status(), 200);
  await page.getByLabel('API key').fill(fixture.key);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Runs', exact: true }).waitFor();
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is: the serious and critical violations, in
 * words. Injected through the debugging protocol, which the page's CSP does not govern.
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeViolation[]>(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations)`,
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes
          .map((node) => JSON.stringify(node.target))
          .join(', ')}`,
    );
}
