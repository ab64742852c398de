import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { findChromium, launchChromium } from '../support/chromium.ts';
import { embeddedOnly } from '../support/deployment.ts';
import { eventually } from '../support/waits.ts';
import {
  ECHO_MODEL,
  LOOKUP_TOOL,
  SYSTEM_PROMPT,
  newContext,
  seriousAxeViolations,
  signIn,
  startConsoleFixture,
  type ConsoleFixture,
} from './console-fixture.ts';

const found = findChromium();
const skip = 'skip' in found ? found.skip : false;
if (skip) console.log(`# SKIPPED the console page checks: ${skip}`);
const testOptions = { skip, timeout: 300_000 };

/**
 * Where the screenshots go: a temporary folder, or the docs' folder when
 * `CONSOLE_SCREENSHOTS_DIR=docs/console` asks for them (how docs/console/*.png are made).
 */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS_DIR;

interface AxNode {
  role?: { value?: unknown };
  name?: { value?: unknown };
}

/** The phone width every page must fit without sideways scrolling. */
const NARROW_WIDTH = 375;

const VARIANTS = [
  { name: 'light-wide', colorScheme: 'light', viewport: { width: 1280, height: 800 } },
  { name: 'dark-wide', colorScheme: 'dark', viewport: { width: 1280, height: 800 } },
  { name: 'light-narrow', colorScheme: 'light', viewport: { width: NARROW_WIDTH, height: 812 } },
  { name: 'dark-narrow', colorScheme: 'dark', viewport: { width: NARROW_WIDTH, height: 812 } },
] as const;

describe(
  'every console page meets WCAG 2.1 AA in light and dark, wide and narrow (extensions §12)',
  embeddedOnly(
    'the pages are the same static files on both deployments; the flows run on both in console-browser',
  ),
  () => {
    let fixture: ConsoleFixture;
    let browser: Browser;
    let screenshots: string;
    const ids = { toolRun: '', doneRun: '', longRun: '', sessionId: '' };

    before(async () => {
      if (skip) return;
      screenshots = SCREENSHOTS ? resolve(SCREENSHOTS) : await mkdtemp(join(tmpdir(), 'console-pages-'));
      await mkdir(screenshots, { recursive: true });
      fixture = await startConsoleFixture('acme');
      // A long unbroken JSON tool input and metadata value: they wrap in their own box, not the page.
      ids.longRun = await fixture.startRun({
        modelId: 'mock/slow-echo',
        tools: [LOOKUP_TOOL],
        prompt: `call lookup {"city":"${'Llanfairpwllgwyngyll'.repeat(12)}"}`,
        metadata: { trace: 'z'.repeat(200) },
      });
      // Something on every page: a run with an answered client tool call, others in the list, a session.
      ids.toolRun = await fixture.startRun({
        modelId: 'mock/slow-echo',
        tools: [LOOKUP_TOOL],
        prompt: 'call lookup {"city":"Paris"}',
        metadata: { ticket: 'T-42' },
      });
      const { sessionId } = await fixture.post('/agent-sessions', {
        systemPrompt: SYSTEM_PROMPT,
        modelId: ECHO_MODEL,
      });
      ids.sessionId = sessionId;
      for (const prompt of ['What is the capital of Portugal?', 'And its population?']) {
        const { runId } = await fixture.post(`/agent-sessions/${sessionId}/messages`, { prompt });
        await fixture.framesOf(runId);
      }
      await fixture.startRun({ modelId: ECHO_MODEL, prompt: 'Summarise the release notes' });
      // A finished run: thinking, an answered tool call, usage and cost, the feedback form.
      ids.doneRun = await fixture.startRun({
        modelId: 'mock/slow-echo',
        reasoningLevel: 50,
        tools: [LOOKUP_TOOL],
        prompt: 'call lookup {"city":"Lisbon"}',
      });
      let pending: { toolUseId: string }[] = [];
      await eventually(async () => {
        pending = (await fixture.get(`/agent-runs/${ids.doneRun}`)).pendingToolCalls;
        return pending.length > 0;
      }, 'the run waits for its tool result');
      await fixture.post(`/agent-runs/${ids.doneRun}/tool-results`, {
        toolUseId: pending[0]?.toolUseId,
        result: '19 °C and sunny',
      });
      await fixture.framesOf(ids.doneRun);
      if ('executablePath' in found) browser = await launchChromium(found.executablePath);
    });

    after(async () => {
      await browser?.close();
      await fixture?.close();
      // Pictures asked for are kept; the temporary ones are not.
      if (screenshots && !SCREENSHOTS) await rm(screenshots, { recursive: true, force: true });
    });

    /**
     * On a narrow screen every run of the list shows its status inside the window: each row's status
     * cell (found by role, with its column header) holds the status the API reports, fully in view.
     */
    async function statusesOutOfView(page: Page, variant: string): Promise<string[]> {
      const problems: string[] = [];
      const { runs } = await fixture.get('/agent-runs?limit=25');
      const innerWidth = await page.evaluate<number>('window.innerWidth');
      const table = page.getByRole('table', { name: 'Runs, newest first' });
      const headers = await table.getByRole('columnheader').allTextContents();
      assert.equal(headers[1], 'Status', 'the second column is the status');
      for (const run of runs as { runId: string; status: string }[]) {
        const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: run.runId }) });
        const status = row.getByRole('cell').nth(1).getByText(run.status, { exact: true });
        await status.waitFor();
        const box = await status.boundingBox();
        if (!box || box.x < 0 || box.x + box.width > innerWidth)
          problems.push(
            `runs ${variant}: the status of ${run.runId} is at ${JSON.stringify(box)}, outside 0–${innerWidth} px`,
          );
      }
      assert.ok(runs.length >= 4, `${runs.length} runs in the list`);
      // Chrome's own accessibility tree (not Playwright's reading of the DOM) still has a table with its
      // column headers once the rows are stacked blocks, and the visible labels are not spoken again.
      const cdp = await page.context().newCDPSession(page);
      const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: AxNode[] };
      await cdp.detach();
      const named = (role: string) =>
        nodes.filter((node) => node.role?.value === role).map((node) => String(node.name?.value));
      assert.ok(named('table').includes('Runs, newest first'), `tables: ${named('table').join(', ')}`);
      assert.deepEqual(named('columnheader').slice(0, 2), ['Run', 'Status']);
      for (const run of runs as { status: string }[])
        assert.ok(
          named('cell').includes(run.status),
          `a cell named "${run.status}", not "Status ${run.status}"`,
        );
      return problems;
    }

    /** Opens a page by its address, waits for its heading and the text that says it loaded. */
    async function open(page: Page, hash: string, heading: string | RegExp, loaded: string | RegExp) {
      await page.goto(`${fixture.server.baseUrl}/console#${hash}`);
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
      await page.getByText(loaded).first().waitFor();
    }

    it(
      'axe finds no serious or critical violation on any page, and each page is photographed',
      testOptions,
      async (t) => {
        const failures: string[] = [];
        for (const variant of VARIANTS) {
          const { context, violations } = await newContext(t, browser, {
            colorScheme: variant.colorScheme,
            viewport: variant.viewport,
          });
          const page = await context.newPage();
          const narrow = variant.viewport.width <= NARROW_WIDTH;
          /**
           * Nothing makes the page wider than the window, and no list scrolls sideways inside its
           * region: every column of every list is readable at 375 and at 1280 px.
           */
          const fitsTheWindow = async (name: string) => {
            const scrolling = await page.evaluate<string[]>(
              `[...document.querySelectorAll('.table-region')].filter((region) => region.scrollWidth > region.clientWidth).map((region) => region.getAttribute('aria-label') + ': ' + region.scrollWidth + ' px in ' + region.clientWidth)`,
            );
            for (const region of scrolling)
              failures.push(`${name} ${variant.name}: the list ${region} scrolls sideways`);
            const [scrollWidth, innerWidth] = await page.evaluate<[number, number]>(
              '[document.documentElement.scrollWidth, window.innerWidth]',
            );
            if (scrollWidth > innerWidth)
              failures.push(
                `${name} ${variant.name}: the page is ${scrollWidth} px wide in a ${innerWidth} px window`,
              );
          };
          const check = async (name: string) => {
            await fitsTheWindow(name);
            for (const violation of await seriousAxeViolations(page))
              failures.push(`${name} ${variant.name}: ${violation}`);
            // The finished run's usage and feedback are below the fold: that one is taken whole.
            await page.screenshot({
              path: join(screenshots, `${name}-${variant.name}.png`),
              fullPage: name === 'run-done',
            });
          };
          await page.goto(`${fixture.server.baseUrl}/console`);
          await page.getByLabel('API key').waitFor();
          await check('sign-in');
          await signIn(page, fixture);
          await page.getByRole('link', { name: ids.toolRun }).waitFor();
          await check('runs');
          if (narrow) failures.push(...(await statusesOutOfView(page, variant.name)));
          await open(page, `/runs/${ids.toolRun}`, /^Run run_/, 'Waiting for a client to answer this call.');
          await check('run');
          await open(page, `/runs/${ids.doneRun}`, /^Run run_/, 'Feedback');
          await check('run-done');
          if (narrow) {
            await open(
              page,
              `/runs/${ids.longRun}`,
              /^Run run_/,
              'Waiting for a client to answer this call.',
            );
            await fitsTheWindow('run-long');
          }
          await open(page, '/sessions', 'Sessions', 'What is the capital of Portugal?');
          await check('sessions');
          await open(page, `/sessions/${ids.sessionId}`, /^Session ses_/, 'And its population?');
          await check('session');
          await open(page, '/models', 'Models', 'mock/slow-echo');
          await check('models');
          await open(page, '/new-run', 'New run', 'A stored agent');
          await check('new-run');
          assert.deepEqual(violations, [], `${variant.name}: no CSP violation or page error`);
        }
        if (SCREENSHOTS) t.diagnostic(`screenshots: ${screenshots}`);
        assert.deepEqual(failures, []);
      },
    );

    it(
      'the console is usable with the keyboard alone: sign in, move through the navigation, open a run',
      testOptions,
      async (t) => {
        const { context } = await newContext(t, browser);
        const page = await context.newPage();
        await page.goto(`${fixture.server.baseUrl}/console`);
        await page.getByLabel('API key').waitFor();
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate<string>('document.activeElement.id'), 'api-key');
        await page.keyboard.type(fixture.key);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { level: 1, name: 'Runs', exact: true }).waitFor();
        const focused = async () =>
          page.evaluate<string>(
            'document.activeElement.tagName + " " + (document.activeElement.textContent ?? "").trim()',
          );
        await page.waitForFunction('document.activeElement.tagName === "H1"');
        assert.equal(await focused(), 'H1 Runs', 'the page heading takes the focus');
        await page.keyboard.press('Shift+Tab');
        // Back to the first control of the page (the skip link), then forward through the header.
        for (let index = 0; index < 10 && (await focused()) !== 'A Skip to content'; index += 1)
          await page.keyboard.press('Shift+Tab');
        assert.equal(await focused(), 'A Skip to content');
        const order: string[] = [];
        for (let index = 0; index < 5; index += 1) {
          await page.keyboard.press('Tab');
          order.push(await focused());
        }
        assert.deepEqual(order, ['A Runs', 'A Sessions', 'A Models', 'A New run', 'BUTTON Sign out']);
        await page.keyboard.press('Tab');
        const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
        assert.equal(outline, 'solid', 'the focused control shows a visible outline');
        await page.getByRole('link', { name: ids.toolRun }).focus();
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { level: 1, name: `Run ${ids.toolRun}`, exact: true }).waitFor();
      },
    );

    it(
      'a run of 10,000 events renders and scrolls without freezing the tab (time printed, not asserted)',
      testOptions,
      async (t) => {
        const words = Array.from({ length: 10_000 }, (_, index) => `w${index}`).join(' ');
        const runId = await fixture.startRun({ modelId: ECHO_MODEL, prompt: words });
        const frames = await fixture.framesOf(runId);
        assert.ok(frames.length >= 10_000, `${frames.length} events`);
        const { context, violations } = await newContext(t, browser);
        const page = await context.newPage();
        await signIn(page, fixture);

        const started = Date.now();
        await page.goto(`${fixture.server.baseUrl}/console#/runs/${runId}`);
        await page.getByText(frames.length.toLocaleString('en-US'), { exact: true }).waitFor();
        await page.getByText('succeeded', { exact: true }).waitFor();
        await page.getByText(/w9999$/).waitFor();
        const rendered = Date.now() - started;
        // The tab still answers at once while it scrolls through the whole reply.
        const scrollStarted = Date.now();
        for (let step = 0; step < 20; step += 1) await page.mouse.wheel(0, 2000);
        const scrolledTo = await page.evaluate<number>('window.scrollY');
        const scrolled = Date.now() - scrollStarted;
        assert.ok(scrolledTo > 0, 'the page scrolled');
        t.diagnostic(
          `10k-event run: ${frames.length} events rendered (replayed from the log, then shown) in ${rendered} ms; 20 wheel scrolls in ${scrolled} ms`,
        );
        console.log(
          `# console 10k-event run: ${frames.length} events, rendered in ${rendered} ms, 20 scrolls in ${scrolled} ms`,
        );
        assert.deepEqual(violations, []);
      },
    );
  },
);
