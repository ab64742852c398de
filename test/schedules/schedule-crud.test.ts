import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOAuthFixture } from '../support/oauth-flow.ts';
import { bearer, createWorkspaceWithKey } from '../support/test-server.ts';
import { credentialsOf, tokenPost } from '../oauth/token-requests.ts';
import { startScheduleFixture, type ScheduleFixture } from './schedule-fixture.ts';

// A time far enough away that no test here sees a fire: 03:00 on 1 January.
const YEARLY = '0 3 1 1 *';

describe('schedules (extensions §8): CRUD, API keys only', () => {
  let f: ScheduleFixture;

  before(async () => {
    f = await startScheduleFixture('sched-crud');
  });
  after(() => f.close());

  it('create answers 201 with the schedule shape; timezone defaults to UTC, enabled to true, nextRunAt is the next time', async () => {
    const created = await f.schedule({ cron: YEARLY, prompt: 'report', metadata: { team: 'ops' } });
    assert.match(created.id, /^sch_/);
    assert.equal(created.agentId, f.agentId);
    assert.equal(created.cron, YEARLY);
    assert.equal(created.timezone, 'UTC');
    assert.equal(created.sessionId, null);
    assert.equal(created.enabled, true);
    assert.equal(created.lastRunAt, null);
    assert.equal(created.lastRunId, null);
    assert.equal(typeof created.createdAt, 'string');
    const next = new Date(created.nextRunAt);
    assert.equal(next.getUTCMonth(), 0);
    assert.equal(next.getUTCDate(), 1);
    assert.equal(next.getUTCHours(), 3);
    assert.ok(next.getTime() > Date.now());
    const read = await f.api('GET', `/schedules/${created.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created);
    const listed = await f.api('GET', '/schedules');
    assert.ok(listed.body.schedules.some((schedule: { id: string }) => schedule.id === created.id));
  });

  it('the cron is read in the IANA time zone; 6 fields have seconds first', async () => {
    const paris = await f.schedule({ cron: YEARLY, timezone: 'Europe/Paris', prompt: 'p' });
    // 03:00 in Paris on 1 January is 02:00 UTC (winter time).
    assert.equal(new Date(paris.nextRunAt).getUTCHours(), 2);
    const seconds = await f.schedule({ cron: '30 0 3 1 1 *', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(new Date(seconds.nextRunAt).getUTCSeconds(), 30);
  });

  it('PATCH changes cron, timezone, prompt, metadata, enabled: disabling clears nextRunAt, enabling counts it again', async () => {
    const created = await f.schedule({ cron: YEARLY, prompt: 'p' });
    const patched = await f.api('PATCH', `/schedules/${created.id}`, {
      cron: '0 4 1 1 *',
      timezone: 'America/New_York',
      prompt: 'q',
      metadata: { a: 'b' },
      enabled: false,
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.cron, '0 4 1 1 *');
    assert.equal(patched.body.timezone, 'America/New_York');
    assert.equal(patched.body.enabled, false);
    assert.equal(patched.body.nextRunAt, null);
    assert.deepEqual(patched.body.metadata, { a: 'b' });
    const enabled = await f.api('PATCH', `/schedules/${created.id}`, { enabled: true });
    assert.equal(new Date(enabled.body.nextRunAt).getUTCHours(), 9); // 04:00 EST
    const messages = await f.api('PATCH', `/schedules/${created.id}`, {
      messages: [{ role: 'user', content: 'hello' }],
    });
    assert.equal(messages.status, 200);
    assert.deepEqual(messages.body.messages, [{ role: 'user', content: 'hello' }]);
    assert.equal(messages.body.prompt, undefined);
  });

  it('DELETE answers 204 and the schedule is gone', async () => {
    const created = await f.schedule({ cron: YEARLY, prompt: 'p' });
    assert.equal((await f.api('DELETE', `/schedules/${created.id}`)).status, 204);
    assert.equal((await f.api('GET', `/schedules/${created.id}`)).status, 404);
    assert.equal((await f.api('GET', `/schedules/${created.id}/runs`)).status, 404);
  });

  it('400 invalid_request for every invalid body: cron, timezone, input, metadata, fields', async () => {
    const base = { agentId: f.agentId, cron: YEARLY, prompt: 'p' };
    const cases: Array<Record<string, unknown>> = [
      { ...base, cron: '* * * *' },
      { ...base, cron: '* * * * * * *' },
      { ...base, cron: '61 * * * *' },
      { ...base, cron: 'every day' },
      { ...base, cron: '@daily' },
      { ...base, cron: '' },
      { ...base, cron: 5 },
      { ...base, timezone: 'Mars/Olympus' },
      { ...base, timezone: '+01:00' },
      { ...base, timezone: '' },
      { agentId: f.agentId, cron: YEARLY },
      { ...base, messages: [{ role: 'user', content: 'x' }] },
      { ...base, prompt: '' },
      { ...base, metadata: { 'bad key': 'v' } },
      { ...base, metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'])) },
      { ...base, enabled: 'yes' },
      { ...base, agentId: 'not-an-agent' },
      { cron: YEARLY, prompt: 'p' },
      { ...base, sessionId: 'ses_unknown' },
      { ...base, unknown: true },
    ];
    for (const body of cases) {
      const answer = await f.api('POST', '/schedules', body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error, 'invalid_request', JSON.stringify(answer.body));
      assert.equal(typeof answer.body.message, 'string');
    }
    const created = await f.schedule({ cron: YEARLY, prompt: 'p' });
    for (const body of [
      { cron: '* *' },
      { timezone: 'Nowhere/Land' },
      { prompt: 'a', messages: [{ role: 'user', content: 'b' }] },
      { agentId: f.agentId },
      { enabled: 1 },
    ]) {
      const answer = await f.api('PATCH', `/schedules/${created.id}`, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error, 'invalid_request');
    }
    for (const query of ['limit=0', 'limit=101', 'limit=x']) {
      assert.equal((await f.api('GET', `/schedules/${created.id}/runs?${query}`)).status, 400, query);
    }
  });

  it('403 forbidden for an agent the key may not run, as a run creation would answer', async () => {
    const other = await f.server.admin('POST', '/workspaces/sched-crud/agents', {
      name: 'Other',
      systemPrompt: 's',
      modelId: 'mock/echo',
    });
    const limited = await f.server.admin('POST', '/workspaces/sched-crud/api-keys', {
      agentIds: [f.agentId],
    });
    const answer = await f.api(
      'POST',
      '/schedules',
      { agentId: other.body.id, cron: YEARLY, prompt: 'p' },
      bearer(limited.body.key),
    );
    assert.equal(answer.status, 403);
    assert.equal(answer.body.error, 'forbidden');
  });

  it('404 for ids unknown in the workspace and for another workspace’s schedule', async () => {
    const other = await createWorkspaceWithKey(f.server, 'sched-crud-other');
    const agent = await f.server.admin('POST', '/workspaces/sched-crud-other/agents', {
      name: 'A',
      systemPrompt: 's',
      modelId: 'mock/echo',
    });
    const theirs = await f.server.request('POST', `${other.ws}/schedules`, {
      headers: bearer(other.key),
      body: { agentId: agent.body.id, cron: YEARLY, prompt: 'p' },
    });
    assert.equal(theirs.status, 201, JSON.stringify(theirs.body));
    for (const id of ['sch_unknown', theirs.body.id]) {
      assert.equal((await f.api('GET', `/schedules/${id}`)).status, 404);
      assert.equal((await f.api('PATCH', `/schedules/${id}`, { enabled: false })).status, 404);
      assert.equal((await f.api('DELETE', `/schedules/${id}`)).status, 404);
      assert.equal((await f.api('GET', `/schedules/${id}/runs`)).status, 404);
    }
  });

  it('an OAuth access token is refused: 403 { error: "insufficient_scope", required: "api_key" }', async () => {
    const app = await createOAuthFixture(f.server, 'sched-oauth');
    const token = await tokenPost(f.server, {
      grant_type: 'client_credentials',
      scope: 'runs:write runs:read',
      ...credentialsOf(app),
    });
    assert.equal(token.status, 200, JSON.stringify(token.body));
    for (const [method, path, body] of [
      ['POST', '/schedules', { agentId: f.agentId, cron: YEARLY, prompt: 'p' }],
      ['GET', '/schedules', undefined],
      ['GET', '/schedules/sch_x/runs', undefined],
    ] as const) {
      const answer = await f.server.request(method, `${app.ws}${path}`, {
        headers: bearer(token.body.access_token),
        ...(body !== undefined && { body }),
      });
      assert.equal(answer.status, 403);
      assert.equal(answer.body.error, 'insufficient_scope');
      assert.equal(answer.body.required, 'api_key');
    }
  });
});
