import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES } from '@agent-runs/client';
import type {
  HostedAgentsResource,
  IdentityResource,
  ModelsResource,
  operations,
  ReplyFeedbackResource,
  RunsResource,
  RunStatus,
  SessionsResource,
  WebhooksResource,
  SchedulesResource,
} from '@agent-runs/client';
import { GENERATED_TYPES_PATH, renderOpenApiTypes } from '../../packages/client/scripts/openapi-types.ts';
import { startClientFixture, type ClientFixture } from './client-fixture.ts';

const ROOT = new URL('../../', import.meta.url);

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { operationId?: string; responses?: Record<string, { description?: string }> }>
  >;
}

/**
 * The client's public routes: every workspace route, userinfo and the hosted A2A endpoint (its card
 * under `.well-known` is the same card, for A2A peers' discovery).
 */
const isClientRoute = (path: string) =>
  path.startsWith('/api/v1/workspaces/') ||
  path === '/api/oauth/userinfo' ||
  (path.startsWith('/api/a2a/') && !path.includes('/.well-known/'));

describe('the SDK types match the OpenAPI document the service serves', () => {
  let fixture: ClientFixture;
  let document: OpenApiDocument;
  before(async () => {
    fixture = await startClientFixture('sdk-types');
    const response = await fetch(`${fixture.server.baseUrl}/openapi.json`);
    assert.equal(response.status, 200);
    document = (await response.json()) as OpenApiDocument;
  });
  after(() => fixture.close());

  it('the committed generated types are what openapi-typescript makes of the served document', async () => {
    const committed = await readFile(new URL(GENERATED_TYPES_PATH, ROOT), 'utf8');
    const regenerated = await renderOpenApiTypes(document, ROOT);
    assert.ok(
      committed === regenerated,
      `${GENERATED_TYPES_PATH} is stale: run node packages/client/scripts/generate-types.ts`,
    );
  });

  it("the client's error codes are the machine codes the document's error responses list", () => {
    // Each error response lists its reasons as "- `code`: when"; credential failures list texts.
    const listed = new Set<string>();
    for (const [template, item] of Object.entries(document.paths)) {
      // The OAuth endpoints answer with OAuth's own codes (RFC 6749), not the service's.
      if (/^(\/api)?\/oauth\//.test(template) && template !== '/api/oauth/userinfo') continue;
      for (const operation of Object.values(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (Number(status) < 400) continue;
          for (const [, reasons] of (response.description ?? '').matchAll(/^- `([^`]*)`/gm)) {
            for (const reason of reasons?.split(' | ') ?? []) {
              if (/^[a-z][a-z0-9_]*$/.test(reason)) listed.add(reason);
            }
          }
        }
      }
    }
    // Any route's 500 is not repeated per route in the document.
    assert.deepEqual([...listed].sort(), ERROR_CODES.filter((code) => code !== 'internal_error').sort());
  });

  it('every public route of the document is called by a client method', async () => {
    const called = new Set<string>();
    const client = fixture.clientWith({
      fetch: (input, init) => {
        called.add(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
        return fetch(input, init);
      },
    });
    const settle = (promise: Promise<unknown>) => promise.catch(() => undefined);
    const { runId } = await client.runs.create({ systemPrompt: 's', prompt: 'hi' });
    for await (const _event of client.runs.stream(runId));
    await Promise.all([
      settle(client.models.list()),
      settle(client.runs.get(runId)),
      settle(client.runs.list()),
      settle(client.runs.submitToolResult(runId, { toolUseId: 'toolu_none', result: 'r' })),
      settle(client.runs.cancel(runId)),
      settle(client.runs.feedback(runId, { verdict: 'UP' })),
      settle(client.replyFeedback.list()),
      settle(client.identity.userinfo()),
    ]);
    const { sessionId } = await client.sessions.create({ systemPrompt: 's' });
    const message = await client.sessions.message(sessionId, { prompt: 'hi' });
    for await (const _event of client.runs.stream(message.runId));
    await Promise.all([
      settle(client.sessions.list()),
      settle(client.sessions.get(sessionId)),
      settle(client.sessions.events(sessionId)),
    ]);
    await client.sessions.end(sessionId);
    const hook = await client.webhooks.create({ url: 'https://example.com/hook' });
    await Promise.all([
      settle(client.webhooks.list()),
      settle(client.webhooks.get(hook.id)),
      settle(client.webhooks.update(hook.id, { enabled: false })),
      settle(client.webhooks.deliveries(hook.id)),
      settle(client.webhooks.retryDelivery(hook.id, 'msg_none')),
    ]);
    await client.webhooks.delete(hook.id);
    const agent = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Helper',
      slug: 'helper',
      systemPrompt: 's',
    });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const schedule = await client.schedules.create({
      agentId: agent.body.id,
      cron: '0 3 1 1 *',
      prompt: 'p',
    });
    await Promise.all([
      settle(client.schedules.list()),
      settle(client.schedules.get(schedule.id)),
      settle(client.schedules.update(schedule.id, { enabled: false })),
      settle(client.schedules.runs(schedule.id)),
    ]);
    await client.schedules.delete(schedule.id);
    await client.hostedAgents.card('helper');
    await client.hostedAgents.send('helper', 'hi');

    const uncalled: string[] = [];
    for (const [template, item] of Object.entries(document.paths)) {
      if (!isClientRoute(template)) continue;
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const method of Object.keys(item).filter((key) => key !== 'parameters')) {
        const route = `${method.toUpperCase()} `;
        const hit = [...called].some(
          (call) => call.startsWith(route) && pattern.test(call.slice(route.length)),
        );
        if (!hit) uncalled.push(`${route}${template} (${item[method]?.operationId})`);
      }
    }
    assert.deepEqual(uncalled, []);
  });
});

// Compile-time: each method takes and returns exactly the document's body types (tsc checks this file).

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type SuccessBody<Op extends keyof operations> = {
  [Status in keyof operations[Op]['responses']]: Status extends 200 | 201 | 202
    ? Json<operations[Op]['responses'][Status]>
    : never;
}[keyof operations[Op]['responses']];
type RequestBody<Op extends keyof operations> = Json<NonNullable<operations[Op]['requestBody']>>;
type Returns<Method extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<Method>>;

export type MethodTypesMatchTheDocument = [
  Expect<Equal<Returns<ModelsResource['list']>, SuccessBody<'listModels'>>>,
  Expect<Equal<Parameters<RunsResource['create']>[0], RequestBody<'createRun'>>>,
  Expect<Equal<Returns<RunsResource['create']>, SuccessBody<'createRun'>>>,
  Expect<Equal<Returns<RunsResource['get']>, SuccessBody<'getRun'>>>,
  Expect<Equal<Returns<RunsResource['list']>, SuccessBody<'listRuns'>>>,
  Expect<
    Equal<
      NonNullable<Parameters<RunsResource['list']>[0]>['status'],
      RunStatus | readonly RunStatus[] | undefined
    >
  >,
  Expect<Equal<Parameters<RunsResource['submitToolResult']>[1], RequestBody<'submitToolResult'>>>,
  Expect<Equal<Returns<RunsResource['submitToolResult']>, SuccessBody<'submitToolResult'>>>,
  Expect<Equal<Returns<RunsResource['cancel']>, SuccessBody<'cancelRun'>>>,
  Expect<Equal<Parameters<RunsResource['feedback']>[1], RequestBody<'giveRunFeedback'>>>,
  Expect<Equal<Returns<RunsResource['feedback']>, SuccessBody<'giveRunFeedback'>>>,
  Expect<Equal<Returns<ReplyFeedbackResource['list']>, SuccessBody<'listRunFeedback'>>>,
  Expect<Equal<Parameters<SessionsResource['create']>[0], RequestBody<'createSession'>>>,
  Expect<Equal<Returns<SessionsResource['create']>, SuccessBody<'createSession'>>>,
  Expect<Equal<Returns<SessionsResource['list']>, SuccessBody<'listSessions'>>>,
  Expect<Equal<Returns<SessionsResource['get']>, SuccessBody<'getSession'>>>,
  Expect<Equal<Returns<SessionsResource['events']>, SuccessBody<'replaySession'>>>,
  Expect<Equal<Parameters<SessionsResource['message']>[1], RequestBody<'sendSessionMessage'>>>,
  Expect<Equal<Returns<SessionsResource['message']>, SuccessBody<'sendSessionMessage'>>>,
  Expect<Equal<Returns<SessionsResource['end']>, SuccessBody<'endSession'>>>,
  Expect<Equal<Returns<IdentityResource['userinfo']>, SuccessBody<'getUserInfo'>>>,
  // card() sends no A2A-Version: it reads the v0.3 member of the card answer (the 1.0 card needs the header).
  Expect<
    Equal<
      Returns<HostedAgentsResource['card']>,
      Extract<SuccessBody<'getA2aAgentCard'>, { preferredTransport: 'JSONRPC' }>
    >
  >,
  Expect<Equal<Parameters<WebhooksResource['create']>[0], RequestBody<'createWebhook'>>>,
  Expect<Equal<Returns<WebhooksResource['create']>, SuccessBody<'createWebhook'>>>,
  Expect<Equal<Returns<WebhooksResource['list']>, SuccessBody<'listWebhooks'>>>,
  Expect<Equal<Returns<WebhooksResource['get']>, SuccessBody<'getWebhook'>>>,
  Expect<Equal<Parameters<WebhooksResource['update']>[1], RequestBody<'updateWebhook'>>>,
  Expect<Equal<Returns<WebhooksResource['update']>, SuccessBody<'updateWebhook'>>>,
  Expect<Equal<Returns<WebhooksResource['deliveries']>, SuccessBody<'listWebhookDeliveries'>>>,
  Expect<Equal<Parameters<SchedulesResource['create']>[0], RequestBody<'createSchedule'>>>,
  Expect<Equal<Returns<SchedulesResource['create']>, SuccessBody<'createSchedule'>>>,
  Expect<Equal<Returns<SchedulesResource['list']>, SuccessBody<'listSchedules'>>>,
  Expect<Equal<Returns<SchedulesResource['get']>, SuccessBody<'getSchedule'>>>,
  Expect<Equal<Parameters<SchedulesResource['update']>[1], RequestBody<'updateSchedule'>>>,
  Expect<Equal<Returns<SchedulesResource['update']>, SuccessBody<'updateSchedule'>>>,
  Expect<Equal<Returns<SchedulesResource['runs']>, SuccessBody<'listScheduleRuns'>>>,
];
