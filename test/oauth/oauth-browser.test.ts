import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { findChromium, launchChromium } from '../support/chromium.ts';
import {
  authorizeUrl,
  createOAuthFixture,
  exchangeCode,
  pkcePair,
  type OAuthFixture,
} from '../support/oauth-flow.ts';
import { bearer, startTestServer, type TestServer } from '../support/test-server.ts';
import { embeddedOnly } from '../support/deployment.ts';

/** Generous, for a slow one-core machine: every wait is on an event, this only bounds it. */
const WAIT_MS = 30_000;
const TEST_TIMEOUT_MS = 120_000;

const found = findChromium();
const skip = 'skip' in found ? found.skip : false;
if (skip) console.log(`# SKIPPED the OAuth browser tests: ${skip}`);
/** Each test skipped with the reason, so the run's summary counts them as skipped. */
const testOptions = { skip, timeout: TEST_TIMEOUT_MS };

const SESSION_COOKIE = 'svc_oauth_session';
const SIGN_IN_ERROR = 'The email or password is incorrect.';

/** The app's redirect URI: a loopback server that records each callback and answers a small page. */
interface CallbackServer {
  uri: string;
  received: URL[];
  close(): Promise<void>;
}

async function startCallbackServer(): Promise<CallbackServer> {
  const received: URL[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
    if (url.pathname !== '/callback') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    received.push(url);
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(
        '<!doctype html><html lang="en"><head><title>Test App</title></head>' +
          '<body><h1>Back in Test App</h1></body></html>',
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    uri: `http://127.0.0.1:${port}/callback`,
    received,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

describe(
  'OAuth sign-in and consent pages in a real browser',
  embeddedOnly(
    'a browser adds the pages as a person uses them; their flow on PostgreSQL and Redis is in the HTTP-level OAuth suites',
  ),
  () => {
    let server: TestServer;
    let callback: CallbackServer;
    let browser: Browser;
    let fixture: OAuthFixture;
    let screenshots: string;
    const agents: { id: string; name: string }[] = [];
    let stateCounter = 0;

    before(async () => {
      if (skip) return;
      screenshots = await mkdtemp(join(tmpdir(), 'oauth-browser-'));
      server = await startTestServer({ dev: true });
      callback = await startCallbackServer();
      fixture = await createOAuthFixture(server, 'browser-ws', { redirectUri: callback.uri });
      for (const name of ['Support bot', 'Billing bot']) {
        const created = await server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
          name,
          systemPrompt: `You are the ${name}.`,
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        agents.push({ id: created.body.id, name });
      }
      if ('executablePath' in found) browser = await launchChromium(found.executablePath);
    });

    after(async () => {
      await browser?.close();
      await callback?.close();
      await server?.close();
    });

    /** The two agents, named for readability. */
    const support = () => agents[0] as { id: string; name: string };
    const billing = () => agents[1] as { id: string; name: string };

    /** A fresh browser profile (own cookies), closed when the test ends. */
    async function newContext(t: TestContext, options: BrowserContextOptions = {}): Promise<BrowserContext> {
      const context = await browser.newContext(options);
      context.setDefaultTimeout(WAIT_MS);
      context.setDefaultNavigationTimeout(WAIT_MS);
      t.after(() => context.close());
      return context;
    }

    /** Opens the app's authorization request in a new tab; returns the tab and the PKCE verifier and state. */
    async function startFlow(context: BrowserContext, scope = 'runs:read runs:write') {
      const pkce = pkcePair();
      const state = `state-${++stateCounter}-${Date.now()}`;
      const page = await context.newPage();
      const response = await page.goto(
        authorizeUrl(server, fixture, {
          scope,
          state,
          code_challenge: pkce.challenge,
          code_challenge_method: 'S256',
        }),
      );
      assert.equal(response?.status(), 200);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      return { page, verifier: pkce.verifier, state };
    }

    /** Types the credentials and clicks "Sign in", as a person would; waits for the page that follows. */
    async function signIn(page: Page, password = fixture.password) {
      await page.getByLabel('Email').fill(fixture.email);
      await page.getByLabel('Password').fill(password);
      await Promise.all([
        page.waitForURL(password === fixture.password ? '**/oauth/consent?*' : '**/oauth/sign-in'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
    }

    /** Waits until the browser has landed on the app's redirect URI; returns where it landed. */
    async function landOnCallback(page: Page): Promise<URL> {
      await page.waitForURL((url) => url.href.startsWith(`${callback.uri}?`));
      await page.getByRole('heading', { name: 'Back in Test App' }).waitFor();
      const landed = new URL(page.url());
      const recorded = callback.received.find(
        (url) => url.searchParams.get('state') === landed.searchParams.get('state'),
      );
      assert.ok(recorded, `the app's server saw no callback for ${landed.href}`);
      assert.equal(recorded.search, landed.search);
      return landed;
    }

    async function screenshot(t: TestContext, page: Page, name: string) {
      const path = join(screenshots, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      t.diagnostic(`screenshot: ${path}`);
    }

    async function activeElement(
      page: Page,
    ): Promise<{ tag: string; id: string; value: string; text: string }> {
      return page.evaluate(
        `(() => { const e = document.activeElement;
         return { tag: e?.tagName ?? '', id: e?.id ?? '', value: e?.value ?? '', text: (e?.textContent ?? '').trim() }; })()`,
      );
    }

    async function startRun(token: string, agentId: string) {
      return server.request('POST', `${fixture.ws}/agent-runs`, {
        headers: bearer(token),
        body: { agentId, prompt: 'Hello from the browser test' },
      });
    }

    it(
      'a person signs in, sees the scopes in words, allows one agent and the app gets a code for a token limited to it',
      testOptions,
      async (t) => {
        const context = await newContext(t);
        const { page, verifier, state } = await startFlow(context);
        await screenshot(t, page, 'sign-in');
        await signIn(page);

        await page.getByRole('heading', { level: 1, name: 'Allow Test App?' }).waitFor();
        const scopes = page.locator('ul.scopes li');
        await scopes.first().waitFor();
        const scopeTexts = (await scopes.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
        assert.deepEqual(scopeTexts, [
          'Read runs and follow their streams (runs:read)',
          'Start runs, answer their tool calls and cancel them (runs:write)',
        ]);
        assert.ok(
          await page.getByText(fixture.email, { exact: true }).isVisible(),
          'the page says who is signed in',
        );
        await screenshot(t, page, 'consent');

        await page.getByLabel(support().name).check();
        assert.equal(await page.getByLabel(billing().name).isChecked(), false);
        await page.getByRole('button', { name: 'Allow' }).click();
        const landed = await landOnCallback(page);

        const code = landed.searchParams.get('code');
        assert.ok(code, `no code in ${landed.href}`);
        assert.equal(landed.searchParams.get('state'), state);
        assert.equal(landed.searchParams.get('iss'), server.baseUrl);
        assert.equal(landed.searchParams.get('error'), null);

        const exchanged = await exchangeCode(server, fixture, code, verifier);
        assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
        assert.match(exchanged.body.access_token, /^svc_at_/);

        const allowed = await startRun(exchanged.body.access_token, support().id);
        assert.equal(allowed.status, 202, JSON.stringify(allowed.body));
        const refused = await startRun(exchanged.body.access_token, billing().id);
        assert.equal(refused.status, 403, JSON.stringify(refused.body));
        assert.equal(refused.body.error, 'forbidden');
      },
    );

    it(
      'a wrong password shows an alert, keeps the typed email, and a correct retry goes on to consent',
      testOptions,
      async (t) => {
        const context = await newContext(t);
        const { page } = await startFlow(context);
        await signIn(page, 'not the password');

        const alert = page.getByRole('alert');
        await alert.waitFor();
        assert.equal((await alert.innerText()).trim(), SIGN_IN_ERROR);
        assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Sign in');
        const email = page.getByLabel('Email');
        assert.equal(await email.inputValue(), fixture.email);
        assert.equal(await email.getAttribute('aria-invalid'), 'true');
        assert.equal(await email.getAttribute('aria-describedby'), await alert.getAttribute('id'));
        assert.equal(await page.getByLabel('Password').inputValue(), '', 'the password is never sent back');
        assert.equal(
          (await activeElement(page)).id,
          'password',
          'focus waits in the password field for the retry',
        );
        await screenshot(t, page, 'sign-in-error');

        await page.getByLabel('Password').fill(fixture.password);
        await Promise.all([
          page.waitForURL('**/oauth/consent?*'),
          page.getByRole('button', { name: 'Sign in' }).click(),
        ]);
        await page.getByRole('heading', { level: 1, name: 'Allow Test App?' }).waitFor();
        assert.equal(await page.getByRole('alert').count(), 0);
      },
    );

    it(
      'clicking Deny sends the browser back to the app with error=access_denied and the state, and no code',
      testOptions,
      async (t) => {
        const context = await newContext(t);
        const { page, state } = await startFlow(context);
        await signIn(page);
        await page.getByLabel(support().name).check();
        await page.getByRole('button', { name: 'Deny' }).click();
        const landed = await landOnCallback(page);

        assert.equal(landed.searchParams.get('error'), 'access_denied');
        assert.equal(landed.searchParams.get('state'), state);
        assert.equal(landed.searchParams.get('iss'), server.baseUrl);
        assert.equal(landed.searchParams.get('code'), null);
      },
    );

    it(
      'works by keyboard alone: autofocus on email, Tab order email → password → Sign in, Enter submits; on consent Tab reaches each agent, Allow, Deny and Space ticks',
      testOptions,
      async (t) => {
        const context = await newContext(t);
        const { page, verifier } = await startFlow(context);

        assert.equal((await activeElement(page)).id, 'email', 'focus starts in the email field');
        await page.keyboard.type(fixture.email);
        await page.keyboard.press('Tab');
        assert.equal((await activeElement(page)).id, 'password');
        await page.keyboard.type(fixture.password);
        await page.keyboard.press('Tab');
        const button = await activeElement(page);
        assert.deepEqual([button.tag, button.text], ['BUTTON', 'Sign in']);
        await Promise.all([page.waitForURL('**/oauth/consent?*'), page.keyboard.press('Enter')]);
        await page.getByRole('heading', { level: 1, name: 'Allow Test App?' }).waitFor();

        // Consent: the agents' checkboxes in order, then Allow, then Deny.
        await page.keyboard.press('Tab');
        let focused = await activeElement(page);
        assert.deepEqual([focused.tag, focused.value], ['INPUT', support().id]);
        await page.keyboard.press('Space');
        assert.equal(await page.getByLabel(support().name).isChecked(), true, 'Space ticks the checkbox');
        await page.keyboard.press('Tab');
        focused = await activeElement(page);
        assert.deepEqual([focused.tag, focused.value], ['INPUT', billing().id]);
        await page.keyboard.press('Tab');
        focused = await activeElement(page);
        assert.deepEqual([focused.tag, focused.text], ['BUTTON', 'Allow']);
        await page.keyboard.press('Tab');
        focused = await activeElement(page);
        assert.deepEqual([focused.tag, focused.text], ['BUTTON', 'Deny']);
        await page.keyboard.press('Shift+Tab');
        assert.equal((await activeElement(page)).text, 'Allow');
        await page.keyboard.press('Enter');
        const landed = await landOnCallback(page);

        const code = landed.searchParams.get('code');
        assert.ok(code, `no code in ${landed.href}`);
        const exchanged = await exchangeCode(server, fixture, code, verifier);
        assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
        const refused = await startRun(exchanged.body.access_token, billing().id);
        assert.equal(refused.status, 403, 'the agent ticked by keyboard is the only one allowed');
      },
    );

    it(
      'works with JavaScript disabled: sign-in, consent and the redirect are plain HTML forms',
      testOptions,
      async (t) => {
        const context = await newContext(t, { javaScriptEnabled: false });
        const { page, verifier, state } = await startFlow(context);
        await page.getByLabel('Email').fill(fixture.email);
        await page.getByLabel('Password').fill(fixture.password);
        // Implicit submission: Enter in the password field submits the form.
        await Promise.all([
          page.waitForURL('**/oauth/consent?*'),
          page.getByLabel('Password').press('Enter'),
        ]);
        await page.getByLabel(billing().name).check();
        await page.getByRole('button', { name: 'Allow' }).click();
        const landed = await landOnCallback(page);

        assert.equal(landed.searchParams.get('state'), state);
        const code = landed.searchParams.get('code');
        assert.ok(code, `no code in ${landed.href}`);
        const exchanged = await exchangeCode(server, fixture, code, verifier);
        assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
        assert.match(exchanged.body.access_token, /^svc_at_/);
        const refused = await startRun(exchanged.body.access_token, support().id);
        assert.equal(refused.status, 403);
      },
    );

    it(
      'accessibility basics: every input has a label, one h1, lang="en", one main landmark',
      testOptions,
      async (t) => {
        const context = await newContext(t);
        const { page } = await startFlow(context);
        const unlabelled = `[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .filter((e) => e.labels.length === 0 && !e.getAttribute('aria-label'))
        .map((e) => e.outerHTML)`;

        assert.equal(await page.getByLabel('Email').getAttribute('type'), 'email');
        assert.equal(await page.getByLabel('Password').getAttribute('type'), 'password');
        assert.deepEqual(await page.evaluate(unlabelled), []);
        assert.equal(await page.locator('h1').count(), 1);
        assert.equal(await page.locator('html').getAttribute('lang'), 'en');
        assert.equal(await page.getByRole('main').count(), 1);
        assert.match(await page.title(), /Sign in/);

        await signIn(page);
        await page.getByRole('heading', { level: 1, name: 'Allow Test App?' }).waitFor();
        for (const agent of agents) {
          const checkbox = page.getByLabel(agent.name);
          assert.equal(await checkbox.getAttribute('type'), 'checkbox');
          assert.equal(await checkbox.getAttribute('value'), agent.id);
        }
        assert.equal(await page.getByRole('checkbox').count(), agents.length);
        assert.equal(await page.getByRole('group', { name: 'Agents' }).count(), 1);
        assert.equal(await page.getByRole('button', { name: 'Allow' }).count(), 1);
        assert.equal(await page.getByRole('button', { name: 'Deny' }).count(), 1);
        assert.deepEqual(await page.evaluate(unlabelled), []);
        assert.equal(await page.locator('h1').count(), 1);
        assert.equal(await page.locator('html').getAttribute('lang'), 'en');
        assert.equal(await page.getByRole('main').count(), 1);
      },
    );

    it(
      'the session cookie is HttpOnly, SameSite=Lax, not Secure over http, path /oauth, and renewed at sign-in',
      testOptions,
      async (t) => {
        const context = await newContext(t);
        const { page } = await startFlow(context);
        const sessionCookie = async () => {
          const cookies = await context.cookies(`${server.baseUrl}/oauth/consent`);
          const matching = cookies.filter((cookie) => cookie.name === SESSION_COOKIE);
          assert.equal(matching.length, 1, JSON.stringify(cookies));
          return matching[0] as (typeof matching)[number];
        };

        const anonymous = await sessionCookie();
        await signIn(page);
        const signedIn = await sessionCookie();
        for (const cookie of [anonymous, signedIn]) {
          assert.equal(cookie.httpOnly, true);
          assert.equal(cookie.sameSite, 'Lax');
          assert.equal(cookie.secure, false);
          assert.equal(cookie.path, '/oauth');
          assert.equal(cookie.domain, '127.0.0.1');
        }
        assert.notEqual(signedIn.value, anonymous.value, 'signing in starts a new session');
        assert.equal(
          (await context.cookies(callback.uri)).some((cookie) => cookie.name === SESSION_COOKIE),
          false,
          'the cookie is not sent outside /oauth',
        );
        assert.equal(await page.evaluate('document.cookie'), '', 'scripts cannot read the cookie');
      },
    );
  },
);
