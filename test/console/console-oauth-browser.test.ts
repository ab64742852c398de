import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { findChromium, launchChromium } from '../support/chromium.ts';
import {
  ECHO_MODEL,
  newContext,
  seriousAxeViolations,
  startConsoleFixture,
  type ConsoleFixture,
} from './console-fixture.ts';

const found = findChromium();
const skip = 'skip' in found ? found.skip : false;
if (skip) console.log(`# SKIPPED the console OAuth sign-in browser tests: ${skip}`);
const testOptions = { skip, timeout: 180_000 };

/** Screenshots go to a temporary folder, or to the docs when `CONSOLE_SCREENSHOTS_DIR=docs/console` asks. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS_DIR;
const PASSWORD = 'correct horse battery staple';
const STORAGE_KEY = 'agent-runs-console';

/** What the console keeps in the tab's session storage (null when signed out). */
function storedCredential(page: Page): Promise<string | null> {
  return page.evaluate<string | null>(`sessionStorage.getItem('${STORAGE_KEY}')`);
}

const VARIANTS: { name: string; options: BrowserContextOptions }[] = [
  { name: 'light-wide', options: { colorScheme: 'light', viewport: { width: 1280, height: 800 } } },
  { name: 'dark-narrow', options: { colorScheme: 'dark', viewport: { width: 375, height: 812 } } },
];

/**
 * Console sign-in through OAuth in a real browser (extensions §12: "sign-in with a workspace API key
 * … or through OAuth"): the person types the workspace, signs in and consents on the service's pages,
 * and lands in the console signed in, the access token in the tab's session storage only.
 */
describe('the console signs in through OAuth in a real browser (extensions §12)', () => {
  let fixture: ConsoleFixture;
  let browser: Browser;
  let screenshots: string;
  let email: string;
  let runId: string;
  const noAppSlug = 'console-oauth-b-no-app';

  before(async () => {
    if (skip) return;
    screenshots = SCREENSHOTS ? resolve(SCREENSHOTS) : await mkdtemp(join(tmpdir(), 'console-oauth-'));
    fixture = await startConsoleFixture('console-oauth-b');
    email = `person@${fixture.slug}.example`;
    const user = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/users`, {
      email,
      password: PASSWORD,
      name: 'Person',
    });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    const app = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/oauth-apps`, {
      name: 'agent-runs console',
      redirectUris: [`${fixture.server.baseUrl}/console/callback`],
    });
    assert.equal(app.status, 201, JSON.stringify(app.body));
    const other = await fixture.server.admin('POST', '/workspaces', { slug: noAppSlug });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    runId = await fixture.startRun({ modelId: ECHO_MODEL, prompt: 'hello from the API key' });
    if ('executablePath' in found) browser = await launchChromium(found.executablePath);
  });

  after(async () => {
    await browser?.close();
    await fixture?.close();
  });

  /** Opens the console, types the workspace and presses "Sign in with OAuth": waits for the service's sign-in page. */
  async function startOAuth(page: Page, slug = fixture.slug): Promise<void> {
    const response = await page.goto(`${fixture.server.baseUrl}/console`);
    assert.equal(response?.status(), 200);
    await page.getByLabel('Workspace').fill(slug);
    await page.getByRole('button', { name: 'Sign in with OAuth' }).click();
  }

  /** The service's sign-in and consent pages, as a person fills them; `decision` is the consent button. */
  async function signInAndConsent(page: Page, decision: 'Allow' | 'Deny'): Promise<void> {
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Allow agent-runs console?' }).waitFor();
    await page.getByRole('button', { name: decision, exact: true }).click();
  }

  async function screenshot(t: TestContext, page: Page, name: string): Promise<void> {
    const path = join(screenshots, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    t.diagnostic(`screenshot: ${path}`);
  }

  it(
    'a person signs in through OAuth, consents, and lands in the console on the runs list; the token is in session storage only',
    testOptions,
    async (t) => {
      const { context, violations } = await newContext(t, browser);
      const page = await context.newPage();
      await startOAuth(page);
      await signInAndConsent(page, 'Allow');
      await page.getByRole('heading', { level: 1, name: 'Runs', exact: true }).waitFor();
      await page.getByRole('link', { name: runId }).waitFor();
      await page.getByText(`Workspace ${fixture.slug}`).waitFor();

      assert.equal(new URL(page.url()).hash, '#/runs', 'the handoff id is gone from the address');
      const stored = await page.evaluate<{ session: string | null; local: string[]; cookie: string }>(
        `({ session: sessionStorage.getItem('${STORAGE_KEY}'), local: Object.keys(localStorage), cookie: document.cookie })`,
      );
      const session = JSON.parse(stored.session ?? 'null') as Record<string, string>;
      assert.deepEqual(Object.keys(session).sort(), ['expiresAt', 'slug', 'token']);
      assert.match(session.token as string, /^svc_at_/);
      assert.equal(session.slug, fixture.slug);
      assert.deepEqual(stored.local, [], 'nothing in local storage');
      assert.equal(stored.cookie, '', 'no cookie readable by script');
      for (const cookie of await context.cookies()) {
        assert.ok(
          !cookie.value.includes(session.token as string),
          `the token is not in cookie ${cookie.name}`,
        );
        assert.ok(cookie.httpOnly, `${cookie.name} is HttpOnly`);
      }
      assert.deepEqual(violations, []);
    },
  );

  it(
    'when the access token is refused (its grant ended), the console says the sign-in ended and offers it again',
    testOptions,
    async (t) => {
      const { context } = await newContext(t, browser);
      const page = await context.newPage();
      await startOAuth(page);
      await signInAndConsent(page, 'Allow');
      await page.getByRole('heading', { level: 1, name: 'Runs', exact: true }).waitFor();
      const grants = await fixture.server.admin('GET', `/workspaces/${fixture.slug}/oauth-grants`);
      assert.equal(grants.status, 200);
      for (const grant of grants.body.oauthGrants as { id: string }[]) {
        const deleted = await fixture.server.admin(
          'DELETE',
          `/workspaces/${fixture.slug}/oauth-grants/${grant.id}`,
        );
        assert.equal(deleted.status, 204);
      }
      await page.getByRole('link', { name: 'Sessions' }).click();
      await page.getByRole('alert').filter({ hasText: 'Your OAuth sign-in has ended' }).waitFor();
      await page.getByRole('button', { name: 'Sign in with OAuth' }).waitFor();
      assert.equal(await storedCredential(page), null);
    },
  );

  it('denied consent lands on the sign-in page with a clear message', testOptions, async (t) => {
    const { context, violations } = await newContext(t, browser);
    const page = await context.newPage();
    await startOAuth(page);
    await signInAndConsent(page, 'Deny');
    await page.getByRole('alert').filter({ hasText: 'You did not allow the console' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the agent-runs console' }).waitFor();
    assert.equal(await page.getByLabel('Workspace').inputValue(), fixture.slug);
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(violations, []);
  });

  it('a workspace without a console app says so and how an operator adds one', testOptions, async (t) => {
    for (const variant of VARIANTS) {
      const { context, violations } = await newContext(t, browser, variant.options);
      const page = await context.newPage();
      await startOAuth(page, noAppSlug);
      const alert = page.getByRole('alert');
      await alert.filter({ hasText: `Workspace “${noAppSlug}” has no OAuth app for the console` }).waitFor();
      assert.match(
        (await alert.textContent()) ?? '',
        new RegExp(
          `${fixture.server.baseUrl}/console/callback.*POST /admin/v1/workspaces/${noAppSlug}/oauth-apps`,
        ),
      );
      assert.deepEqual(await seriousAxeViolations(page), [], variant.name);
      const scrollsSideways = await page.evaluate<boolean>(
        'document.documentElement.scrollWidth > window.innerWidth',
      );
      assert.equal(scrollsSideways, false, `${variant.name}: no sideways scrolling`);
      await screenshot(t, page, `sign-in-oauth-no-app-${variant.name}`);
      assert.deepEqual(violations, []);
      await context.close();
    }
  });

  it(
    'the sign-in page offers both ways, labelled, and passes axe in light and dark',
    testOptions,
    async (t) => {
      for (const variant of VARIANTS) {
        const { context, violations } = await newContext(t, browser, variant.options);
        const page = await context.newPage();
        await page.goto(`${fixture.server.baseUrl}/console`);
        await page.getByLabel('API key').waitFor();
        await page.getByLabel('Workspace').waitFor();
        await page.getByRole('button', { name: 'Sign in with OAuth' }).waitFor();
        assert.deepEqual(await seriousAxeViolations(page), [], variant.name);
        await screenshot(t, page, `sign-in-oauth-${variant.name}`);
        assert.deepEqual(violations, []);
        await context.close();
      }
    },
  );

  it('an unknown or expired handoff is refused: the sign-in page says so', testOptions, async (t) => {
    const { context, violations } = await newContext(t, browser);
    const page = await context.newPage();
    await page.goto(`${fixture.server.baseUrl}/console#/oauth-handoff/${'A'.repeat(43)}`);
    await page
      .getByRole('alert')
      .filter({ hasText: 'This sign-in has expired or was already used' })
      .waitFor();
    assert.equal(new URL(page.url()).hash, '#/runs', 'the handoff id is gone from the address');
    assert.equal(await storedCredential(page), null);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await screenshot(t, page, 'sign-in-oauth-expired-light-wide');
    assert.deepEqual(violations, []);
  });
});
