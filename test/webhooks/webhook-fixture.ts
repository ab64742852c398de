import assert from 'node:assert/strict';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { eventually } from '../support/waits.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

/** The shortened retry schedule of the webhook tests: two retries, 50 ms then 100 ms after. */
export const TEST_RETRY_SCHEDULE = '50,100';

export interface WebhookFixture {
  runs: RunFixture;
  receiver: WebhookReceiver;
  /** Creates an endpoint at the receiver's `path` answering `answers` in turn; returns its id. */
  endpoint(
    path: string,
    body?: Record<string, unknown>,
    ...answers: Array<{ status: number; headers?: Record<string, string> }>
  ): Promise<string>;
  api(method: string, path: string, body?: unknown): ReturnType<RunFixture['server']['request']>;
  /** Runs to its end on one scripted reply (succeeded, or failed on a provider 400). */
  runOnce(outcome: 'succeeded' | 'failed'): Promise<string>;
  /** The endpoint's delivery log once every delivery in it has `status`. */
  deliveriesSettled(
    endpointId: string,
    count: number,
    status: 'succeeded' | 'failed',
  ): Promise<Array<Record<string, any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers
  close(): Promise<void>;
}

/**
 * A run fixture (fake provider, workspace `acme`) whose service may reach the receiver on 127.0.0.1
 * (`AGENT_RUNS_FETCH_ALLOW=127.0.0.1/32`) and retries webhooks on the shortened schedule.
 */
export async function startWebhookFixture(): Promise<WebhookFixture> {
  const receiver = await new WebhookReceiver().start();
  const runs = await startRunFixture('openai-chat', {
    env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.1/32', AGENT_RUNS_WEBHOOK_RETRY_SCHEDULE: TEST_RETRY_SCHEDULE },
  }).catch(async (error: unknown) => {
    await receiver.close();
    throw error;
  });
  const api: WebhookFixture['api'] = (method, path, body) =>
    runs.server.request(method, `${runs.ws}${path}`, {
      headers: runs.headers,
      ...(body !== undefined && { body }),
    });
  return {
    runs,
    receiver,
    api,
    endpoint: async (path, body = {}, ...answers) => {
      const created = await api('POST', '/webhooks', { url: `${receiver.url}${path}`, ...body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      receiver.expect(path, created.body.secret, ...answers);
      return created.body.id as string;
    },
    runOnce: async (outcome) => {
      runs.fake.enqueue(
        outcome === 'succeeded'
          ? { text: ['Hello ', 'there'] }
          : { type: 'http-error', status: 400, message: 'bad request' },
      );
      const { runId } = await runs.runToEnd({ systemPrompt: 's', prompt: 'p' });
      return runId;
    },
    deliveriesSettled: async (endpointId, count, status) => {
      let deliveries: Array<Record<string, any>> = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON
      await eventually(
        async () => {
          deliveries = (await api('GET', `/webhooks/${endpointId}/deliveries`)).body.deliveries;
          return deliveries.length === count && deliveries.every((delivery) => delivery.status === status);
        },
        `${count} deliveries of ${endpointId} are ${status}`,
        { intervalMs: 50 },
      );
      return deliveries;
    },
    close: async () => {
      try {
        await runs.close();
      } finally {
        await receiver.close();
      }
    },
  };
}
