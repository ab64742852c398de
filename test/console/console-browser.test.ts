import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { findChromium, launchChromium } from '../support/chromium.ts';
import { eventually } from '../support/waits.ts';
import {
  ECHO_MODEL,
  LOOKUP_TOOL,
  SLOW_MODEL,
  SYSTEM_PROMPT,
  newContext,
  signIn,
  startConsoleFixture,
  type ConsoleFixture,
} from './console-fixture.ts';

const found = findChromium();
const skip = 'skip' in found ? found.skip : false;
if (skip) console.log(`# SKIPPED the console browser tests: ${skip}`);
const testOptions = { skip, timeout: 180_000 };

/** `count` numbered words: the slow model streams them one delta at a time. */
const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index}`).join(' ');
/** The watched run streams about 20 ms per word: about 8 s, long enough to open it while it runs. */
const RUN_WORDS = 400;
const LAST_WORD = new RegExp(`w${RUN_WORDS - 1}$`);

/** The run's transcript text as the page shows it. */
async function assistantText(page: Page): Promise<string> {
  const items = page.getByRole('article', { name: 'Assistant' });
  return (await items.count()) === 0 ? '' : ((await items.last().textContent()) ?? '');
}

/**
 * A reverse proxy in front of the service that cuts the first run stream it carries after about
 * 1.5 KB, as a flaky network would; everything else passes through.
 */
async function startDroppingProxy(target: string) {
  const state = { drops: 0 };
  const server = createServer((incoming, outgoing) => {
    const forward = request(
      `${target}${incoming.url ?? '/'}`,
      { method: incoming.method, headers: incoming.headers },
      (upstream) => {
        outgoing.writeHead(upstream.statusCode ?? 502, upstream.headers);
        if (!(incoming.url ?? '').includes('/stream') || state.drops > 0) {
          upstream.pipe(outgoing);
          return;
        }
        let bytes = 0;
        upstream.on('data', (chunk: Buffer) => {
          if (outgoing.destroyed) return;
          outgoing.write(chunk);
          bytes += chunk.length;
          if (bytes > 1500) {
            state.drops += 1;
            upstream.destroy();
            outgoing.destroy();
          }
        });
        upstream.on('end', () => outgoing.end());
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the web console in a real browser (extensions §12)', () => {
  let fixture: ConsoleFixture;
  let browser: Browser;

  before(async () => {
    if (skip) return;
    fixture = await startConsoleFixture('console-ws');
    if ('executablePath' in found) browser = await launchChromium(found.executablePath);
  });

  after(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it(
    'a person signs in with an API key kept in the tab only, sees the runs list and watches a running run’s text grow',
    testOptions,
    async (t) => {
      const { context, violations } = await newContext(t, browser);
      const page = await context.newPage();
      await signIn(page, fixture);
      // Started once the person is signed in (signing in on a loaded machine can outlast a short run),
      // long enough to be opened while it streams; a reload shows it in the list.
      const runId = await fixture.startRun({
        modelId: SLOW_MODEL,
        prompt: words(RUN_WORDS),
        metadata: { ticket: 'T-1' },
      });
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Runs', exact: true }).waitFor();

      const stored = await page.evaluate<{ session: string; local: number; cookie: string }>(
        '({ session: JSON.stringify(sessionStorage), local: localStorage.length, cookie: document.cookie })',
      );
      assert.ok(stored.session.includes(fixture.key), 'the key is in the tab’s session storage');
      assert.equal(stored.local, 0, 'nothing in local storage');
      assert.equal(stored.cookie, '', 'no cookie');
      for (const name of ['Runs', 'Sessions', 'Models', 'New run'])
        await page.getByRole('navigation').getByRole('link', { name, exact: true }).waitFor();

      await page.getByRole('link', { name: runId }).click();
      await page.getByRole('heading', { level: 1, name: `Run ${runId}`, exact: true }).waitFor();
      await page
        .getByRole('article', { name: 'Assistant' })
        .getByText(/You said: w0/)
        .waitFor();
      const early = (await assistantText(page)).length;
      // The same item grows while the run streams (checked before the run ends at its last word).
      await eventually(async () => (await assistantText(page)).length > early + 20, 'the text grows', {
        intervalMs: 50,
      });
      assert.doesNotMatch(await assistantText(page), LAST_WORD, 'seen growing before the end');
      await page.getByText('succeeded', { exact: true }).waitFor();
      assert.match(await assistantText(page), LAST_WORD);
      await page.getByRole('heading', { name: 'Usage' }).waitFor();
      assert.ok(await page.getByText(/^\$0\.\d+$/).isVisible(), 'a cost from the catalog pricing');

      // The runs list shows the finished run with its status; a status filter narrows it.
      await page.getByRole('link', { name: 'Runs', exact: true }).click();
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: runId }) });
      await row.getByText('succeeded').waitFor();
      await page.getByLabel('Status').selectOption('failed');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('No runs match.').waitFor();
      assert.deepEqual(violations, []);
    },
  );

  it(
    'a pending client tool call is answered by hand from the run view; its input and result are shown',
    testOptions,
    async (t) => {
      const runId = await fixture.startRun({
        modelId: ECHO_MODEL,
        tools: [LOOKUP_TOOL],
        prompt: 'call lookup {"city":"Paris"}',
      });
      const { context, violations } = await newContext(t, browser);
      const page = await context.newPage();
      await signIn(page, fixture);
      await page.goto(`${fixture.server.baseUrl}/console#/runs/${runId}`);

      const call = page.getByRole('article', { name: 'Tool call lookup' });
      await call.getByText('"city": "Paris"').waitFor();
      await page.getByText('waiting', { exact: true }).waitFor();
      await call.getByLabel('Result for lookup').fill('Sunny, 21 °C');
      await call.getByRole('button', { name: 'Send result' }).click();
      await call.getByRole('heading', { name: 'Result' }).waitFor();
      await call.getByText('Sunny, 21 °C').waitFor();
      await page.getByText('succeeded', { exact: true }).waitFor();
      assert.equal(await call.getByLabel('Result for lookup').count(), 0, 'no answer form once answered');
      const frames = await fixture.framesOf(runId);
      const echo = frames.find((frame) => frame.data.type === 'local_tool_result_in');
      assert.equal(echo?.data.data.output, 'Sunny, 21 °C');
      assert.deepEqual(violations, []);
    },
  );

  it(
    'feedback: “Not helpful” with an explanation is stored on the run and can be changed to “Helpful”',
    testOptions,
    async (t) => {
      const runId = await fixture.startRun({ modelId: ECHO_MODEL, prompt: 'Rate me' });
      await fixture.framesOf(runId);
      const { context } = await newContext(t, browser);
      const page = await context.newPage();
      await signIn(page, fixture);
      await page.goto(`${fixture.server.baseUrl}/console#/runs/${runId}`);

      await page.getByLabel('Explanation (optional)').fill('It only echoed me.');
      await page.getByRole('button', { name: 'Not helpful' }).click();
      await page.getByText('Feedback saved: Not helpful.').waitFor();
      let listed = (await fixture.get('/reply-feedback')).feedback.find(
        (entry: { agentRunId: string }) => entry.agentRunId === runId,
      );
      assert.equal(listed?.verdict, 'DOWN');
      assert.equal(listed?.explanation, 'It only echoed me.');

      await page.getByRole('button', { name: 'Helpful', exact: true }).click();
      await page.getByText('Feedback saved: Helpful.').waitFor();
      assert.equal(
        await page.getByRole('button', { name: 'Helpful', exact: true }).getAttribute('aria-pressed'),
        'true',
      );
      listed = (await fixture.get('/reply-feedback')).feedback.find(
        (entry: { agentRunId: string }) => entry.agentRunId === runId,
      );
      assert.equal(listed?.verdict, 'UP');
    },
  );

  it('the sessions list opens a session’s replay, message by message', testOptions, async (t) => {
    const { sessionId } = await fixture.post('/agent-sessions', {
      systemPrompt: SYSTEM_PROMPT,
      modelId: ECHO_MODEL,
      metadata: { team: 'travel' },
    });
    const first = await fixture.post(`/agent-sessions/${sessionId}/messages`, {
      prompt: 'Plan my trip to Lisbon',
    });
    await fixture.framesOf(first.runId);
    const { context } = await newContext(t, browser);
    const page = await context.newPage();
    await signIn(page, fixture);

    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sessions', exact: true }).waitFor();
    await page.getByLabel('Metadata').fill('team:nobody');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No sessions.').waitFor();
    await page.getByLabel('Metadata').fill('team:travel');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: sessionId }).click();
    await page.getByRole('heading', { name: /Conversation \(2 messages\)/ }).waitFor();
    await page.getByRole('article', { name: 'User' }).getByText('Plan my trip to Lisbon').waitFor();
    await page
      .getByRole('article', { name: 'Assistant' })
      .getByText('You said: Plan my trip to Lisbon')
      .waitFor();
  });

  it(
    'the new-run form starts an ephemeral spec on a catalog model and opens its live view; the models page lists the catalog',
    testOptions,
    async (t) => {
      const { context } = await newContext(t, browser);
      const page = await context.newPage();
      await signIn(page, fixture);
      await page.getByRole('link', { name: 'Models', exact: true }).click();
      await page.getByRole('cell', { name: SLOW_MODEL }).waitFor();

      await page.getByRole('link', { name: 'New run', exact: true }).click();
      await page.getByLabel('An ephemeral spec (JSON)').check();
      await page.getByLabel('Agent spec (JSON)').fill('{ "systemPrompt": "Echo." }');
      await page.getByLabel('Model').selectOption(ECHO_MODEL);
      await page.getByLabel('Prompt').fill('Started from the form');
      await page.getByRole('button', { name: 'Start run' }).click();
      await page.getByRole('heading', { level: 1, name: /^Run run_/ }).waitFor();
      await page.getByText('You said: Started from the form').waitFor();
      await page.getByText('succeeded', { exact: true }).waitFor();
    },
  );

  it(
    'the run view survives a dropped stream: it reconnects with Last-Event-ID and shows every event once',
    testOptions,
    async (t) => {
      const proxy = await startDroppingProxy(fixture.server.baseUrl);
      t.after(() => proxy.close());
      const runId = await fixture.startRun({ modelId: SLOW_MODEL, prompt: words(120) });
      const { context, violations } = await newContext(t, browser);
      const page = await context.newPage();
      await signIn(page, { ...fixture, server: { ...fixture.server, baseUrl: proxy.url } });
      await page.goto(`${proxy.url}/console#/runs/${runId}`);
      await page.getByText('succeeded', { exact: true }).waitFor();
      assert.equal(proxy.state.drops, 1, 'the first stream was cut');
      const frames = await fixture.framesOf(runId);
      // The item's heading, “Assistant”, is for screen readers; the reply follows it.
      assert.equal(await assistantText(page), `AssistantYou said: ${words(120)}`);
      await page.getByText(frames.length.toLocaleString('en-US'), { exact: true }).waitFor();
      assert.deepEqual(violations, []);
    },
  );

  it(
    'a key revoked while signed in sends the person back to sign-in, saying why, and forgets the key',
    testOptions,
    async (t) => {
      const created = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/api-keys`, {});
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { context } = await newContext(t, browser);
      const page = await context.newPage();
      await signIn(page, { ...fixture, key: created.body.key });
      const revoked = await fixture.server.admin(
        'DELETE',
        `/workspaces/${fixture.slug}/api-keys/${created.body.id}`,
      );
      assert.ok(revoked.status < 300, JSON.stringify(revoked.body));

      // The next call refused sends the person back: this navigation's, or the runs list's own refresh
      // if that comes first (it may remove the navigation before a click lands, so none is awaited).
      await page.evaluate("location.hash = '#/sessions'");
      await page
        .getByRole('alert')
        .getByText('The API key was refused (revoked or expired). Sign in again.')
        .waitFor();
      await page.getByLabel('API key').waitFor();
      assert.equal(await page.evaluate<number>('sessionStorage.length'), 0, 'the key is forgotten');
    },
  );
});
