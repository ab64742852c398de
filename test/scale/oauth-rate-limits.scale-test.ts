import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { SCALE } from '../support/engines.ts';
import {
  authorizeUrl,
  CookieJar,
  createOAuthFixture,
  exchangeCode,
  hiddenField,
  pkcePair,
  postForm,
  type OAuthFixture,
} from '../support/oauth-flow.ts';
import { openSse, readAll, readToEnd } from '../support/sse-client.ts';
import { bearer, testServerAt, type TestResponse, type TestServer } from '../support/test-server.ts';
import { startCluster, type Cluster } from './cluster.ts';

const RUN_START_LIMIT = 200;
const LIFECYCLE_LIMIT = 200;
const TRANSPORT_LIMIT = 1000;
/** Attempts sent at once in a burst: twice the bucket's limit, half to each replica. */
const BURST = 400;
/** Transport requests sent at once (well within the transport limit). */
const TRANSPORT_REQUESTS = 300;

/**
 * The authorization code flow with its steps on two replicas: the authorization request and sign-in
 * on `first`, the consent page, the consent and the code exchange on `second` (the flow's state, the
 * browser session and the code are in storage, not in a replica's memory).
 */
async function tokenAcrossReplicas(
  first: TestServer,
  second: TestServer,
  fixture: OAuthFixture,
  scope: string,
): Promise<string> {
  const pkce = pkcePair();
  const jar = new CookieJar();
  const start = await fetch(
    authorizeUrl(first, fixture, {
      scope,
      state: 's',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    }),
    { redirect: 'manual' },
  );
  jar.take(start);
  const signInPage = await start.text();
  assert.equal(start.status, 200, signInPage);
  const requestId = hiddenField(signInPage, 'request');
  const signIn = await postForm(`${first.baseUrl}/oauth/sign-in`, jar, {
    request: requestId,
    csrf: hiddenField(signInPage, 'csrf'),
    email: fixture.email,
    password: fixture.password,
  });
  assert.equal(signIn.status, 303, await signIn.clone().text());
  const consent = await fetch(new URL(signIn.headers.get('location') as string, `${second.baseUrl}/oauth/`), {
    headers: { cookie: jar.header() },
    redirect: 'manual',
  });
  const consentPage = await consent.text();
  assert.equal(consent.status, 200, `consent page on the second replica: ${consentPage}`);
  const decided = await postForm(`${second.baseUrl}/oauth/consent`, jar, {
    request: requestId,
    csrf: hiddenField(consentPage, 'csrf'),
    decision: 'allow',
  });
  assert.equal(decided.status, 303, await decided.clone().text());
  const code = new URL(decided.headers.get('location') as string).searchParams.get('code');
  assert.ok(code, `a code in ${decided.headers.get('location')}`);
  const exchanged = await exchangeCode(second, fixture, code, pkce.verifier);
  assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
  assert.deepEqual(exchanged.body.scope.split(' ').sort(), scope.split(' ').sort());
  return exchanged.body.access_token;
}

/** The counts of a burst's answers by status. */
function byStatus(responses: readonly TestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
  return counts;
}

/** Within 1 % of the limit (at least one request either way). */
function assertWithinOnePercent(admitted: number, limit: number, what: string): void {
  const tolerance = Math.max(1, Math.floor(limit / 100));
  assert.ok(
    Math.abs(admitted - limit) <= tolerance,
    `${what}: ${admitted} requests admitted for a limit of ${limit} (tolerance ±${tolerance})`,
  );
}

describe(
  'OAuth rate limits across two API replicas on PostgreSQL and Redis',
  { skip: !SCALE && 'scale test: npm run test:scale' },
  () => {
    let cluster: Cluster;
    let fake: FakeProviderServer;
    let apis: [TestServer, TestServer];
    let fixture: OAuthFixture;
    /** One grant for the bursts, another for the transport check (each grant has its own buckets). */
    let burstToken: Record<string, string>;
    let transportToken: Record<string, string>;
    /** A run that has ended, for snapshots and stream opens. */
    let runId: string;
    let runStartRemaining: number;

    /** The `index`-th request of a burst goes to replica `index % 2`. */
    const on = (index: number) => apis[index % 2] as TestServer;

    before(async () => {
      fake = await startFakeAnthropic();
      cluster = await startCluster({ apis: 2, workers: 1 });
      apis = [
        testServerAt(cluster.apis[0]?.baseUrl ?? '', cluster.adminToken),
        testServerAt(cluster.apis[1]?.baseUrl ?? '', cluster.adminToken),
      ];
      fixture = await createOAuthFixture(apis[0], 'limited', {
        workspace: {
          rateLimits: {
            runStart: RUN_START_LIMIT,
            lifecycle: LIFECYCLE_LIMIT,
            otherMutations: 100,
            transport: TRANSPORT_LIMIT,
          },
        },
      });
      const provider = await apis[1].admin('POST', `/workspaces/${fixture.slug}/providers`, {
        provider: 'anthropic',
        baseUrl: fake.url,
        apiKey: 'sk-fake',
        models: [{ vendorModelId: 'fake-model' }],
        isDefault: true,
      });
      assert.equal(provider.status, 201, JSON.stringify(provider.body));
      const scope = 'runs:write runs:read models:read';
      burstToken = bearer(await tokenAcrossReplicas(apis[0], apis[1], fixture, scope));
      transportToken = bearer(await tokenAcrossReplicas(apis[1], apis[0], fixture, scope));

      // A run that has ended, for the transport test to read; the transport grant's first run start.
      fake.enqueue({ text: ['Hello ', 'there.'] });
      const created = await apis[0].request('POST', `${fixture.ws}/agent-runs`, {
        headers: transportToken,
        body: { systemPrompt: 's', prompt: 'hi' },
      });
      assert.equal(created.status, 202, JSON.stringify(created.body));
      assert.equal(created.headers.get('x-ratelimit-bucket'), 'run_start');
      runStartRemaining = Number(created.headers.get('x-ratelimit-remaining'));
      assert.equal(runStartRemaining, RUN_START_LIMIT - 1);
      runId = created.body.runId as string;
      const frames = await readAll(`${apis[1].baseUrl}${created.body.streamUrl as string}`, transportToken);
      assert.equal(frames.at(-1)?.data.type, 'result');
    });
    after(async () => {
      await cluster?.stop();
      await fake?.close();
    });

    it('an access token obtained on two replicas (sign-in on one, consent and code exchange on the other) works on both', async () => {
      for (const token of [burstToken, transportToken]) {
        for (const api of apis) {
          const models = await api.request('GET', `${fixture.ws}/models`, { headers: token });
          assert.equal(models.status, 200, JSON.stringify(models.body));
        }
      }
    });

    it(`run starts of one grant are limited across replicas to within 1 % of runStart (${BURST} concurrent attempts, refused bodies count)`, async (t) => {
      // Invalid bodies: every attempt the limit admits is answered 400 (it counts), the rest 429.
      const started = Date.now();
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, index) =>
          on(index).request('POST', `${fixture.ws}/agent-runs`, { headers: burstToken, body: {} }),
        ),
      );
      const counts = byStatus(responses);
      const admitted = responses.filter((response) => response.status !== 429).length;
      t.diagnostic(
        `run_start: ${admitted} of ${BURST} admitted for a limit of ${RUN_START_LIMIT} ` +
          `(${(((admitted - RUN_START_LIMIT) / RUN_START_LIMIT) * 100).toFixed(2)} %), ` +
          `statuses ${JSON.stringify(counts)}, per replica ${JSON.stringify(
            [0, 1]
              .map((replicaIndex) =>
                responses.filter((response, index) => index % 2 === replicaIndex && response.status !== 429),
              )
              .map((admittedHere) => admittedHere.length),
          )}, ${Date.now() - started} ms`,
      );
      assert.deepEqual(Object.keys(counts).sort(), ['400', '429'], JSON.stringify(counts));
      assertWithinOnePercent(admitted, RUN_START_LIMIT, 'run_start');
      for (const response of responses) {
        assert.equal(response.headers.get('x-ratelimit-bucket'), 'run_start');
        if (response.status === 429) assert.equal(response.body.error, 'rate_limit_exceeded');
      }
      // Each admitted attempt saw its own count: the remaining values are distinct.
      const remaining = responses
        .filter((response) => response.status !== 429)
        .map((response) => Number(response.headers.get('x-ratelimit-remaining')));
      t.diagnostic(`distinct X-RateLimit-Remaining among admitted: ${new Set(remaining).size}`);
    });

    it(`lifecycle calls of one grant are limited across replicas to within 1 % of the lifecycle limit (${BURST} concurrent cancels)`, async (t) => {
      const started = Date.now();
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, index) =>
          on(index).request('POST', `${fixture.ws}/agent-runs/${runId}/cancel`, { headers: burstToken }),
        ),
      );
      const counts = byStatus(responses);
      const admitted = responses.filter((response) => response.status !== 429).length;
      t.diagnostic(
        `lifecycle: ${admitted} of ${BURST} admitted for a limit of ${LIFECYCLE_LIMIT} ` +
          `(${(((admitted - LIFECYCLE_LIMIT) / LIFECYCLE_LIMIT) * 100).toFixed(2)} %), ` +
          `statuses ${JSON.stringify(counts)}, ${Date.now() - started} ms`,
      );
      assert.deepEqual(Object.keys(counts).sort(), ['200', '429'], JSON.stringify(counts));
      assertWithinOnePercent(admitted, LIFECYCLE_LIMIT, 'lifecycle');
      for (const response of responses) assert.equal(response.headers.get('x-ratelimit-bucket'), 'lifecycle');
    });

    it(`transport (snapshots, model lists, SSE opens) on both replicas consumes no run-start capacity and is not limited within its own limit (${TRANSPORT_REQUESTS} concurrent)`, async (t) => {
      const before = await apis[1].request('GET', `${fixture.ws}/models`, { headers: transportToken });
      assert.equal(before.headers.get('x-ratelimit-bucket'), 'transport');
      const transportRemaining = Number(before.headers.get('x-ratelimit-remaining'));
      const kinds = ['snapshot', 'models', 'stream'] as const;
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: TRANSPORT_REQUESTS }, async (_, index) => {
          const api = on(index);
          const kind = kinds[Math.floor(index / 2) % kinds.length] as (typeof kinds)[number];
          if (kind === 'stream') {
            const url = `${api.baseUrl}${fixture.ws}/agent-runs/${runId}/stream`;
            const stream = await openSse(url, transportToken);
            if (stream.status !== 200) stream.close();
            else await readToEnd(stream, url);
            return { kind, status: stream.status, headers: stream.headers };
          }
          const path = kind === 'models' ? '/models' : `/agent-runs/${runId}`;
          const response = await api.request('GET', `${fixture.ws}${path}`, { headers: transportToken });
          return { kind, status: response.status, headers: response.headers };
        }),
      );
      const counts: Record<string, number> = {};
      for (const { kind, status } of answers)
        counts[`${kind} ${status}`] = (counts[`${kind} ${status}`] ?? 0) + 1;
      t.diagnostic(`transport: ${JSON.stringify(counts)}, ${Date.now() - started} ms`);
      for (const { kind, status, headers } of answers) {
        assert.equal(status, 200, `${kind}: ${status}`);
        assert.equal(headers.get('x-ratelimit-bucket'), 'transport', kind);
      }

      // The next run start sees the count the first one left, less itself: transport took none of it.
      const next = await apis[1].request('POST', `${fixture.ws}/agent-runs`, {
        headers: transportToken,
        body: {},
      });
      assert.equal(next.status, 400, JSON.stringify(next.body));
      assert.equal(next.headers.get('x-ratelimit-bucket'), 'run_start');
      assert.equal(Number(next.headers.get('x-ratelimit-remaining')), runStartRemaining - 1);

      // And transport counted each of its requests once, across both replicas.
      const models = await apis[0].request('GET', `${fixture.ws}/models`, { headers: transportToken });
      assert.equal(models.headers.get('x-ratelimit-bucket'), 'transport');
      assert.equal(
        Number(models.headers.get('x-ratelimit-remaining')),
        transportRemaining - TRANSPORT_REQUESTS - 1,
      );
    });
  },
);
