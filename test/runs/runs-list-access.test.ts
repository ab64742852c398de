import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createOAuthFixture, obtainTokens } from '../support/oauth-flow.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { bearer } from '../support/test-server.ts';
import { ids, runsListHelpers, tag, type ListEntry } from './runs-list-support.ts';

describe('runs list: who sees which runs (extensions §4)', { timeout: 180_000 }, () => {
  let fixture: RunFixture;
  let agentA: string;
  let agentB: string;

  before(async () => {
    fixture = await startRunFixture('anthropic-messages');
    const agent = async (name: string) =>
      (await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, { name, systemPrompt: 's' }))
        .body.id as string;
    agentA = await agent('Alpha');
    agentB = await agent('Beta');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const { list, endedRuns } = runsListHelpers(() => fixture);

  it("an API key with an agent allowlist sees only its agents' runs", async () => {
    const t = tag();
    const [ofA] = await endedRuns(t, 1, { agentId: agentA });
    const [ofB] = await endedRuns(t, 1, { agentId: agentB });
    const [ephemeral] = await endedRuns(t, 1);
    const restricted = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/api-keys`, {
      agentIds: [agentA],
    });
    const headers = bearer(restricted.body.key);
    assert.deepEqual(ids((await list(`?metadata=suite:${t}`, headers)).body), [ofA]);
    const everything = (await list('?limit=200', headers)).body.runs as ListEntry[];
    assert.ok(everything.every((entry) => entry.agentId === agentA));
    assert.deepEqual(ids((await list(`?agentId=${agentB}`, headers)).body), [], "another agent's runs: none");
    assert.deepEqual(ids((await list(`?metadata=suite:${t}&agentId=${agentA}`, headers)).body), [ofA]);
    // The workspace's unrestricted key sees them all.
    assert.deepEqual(ids((await list(`?metadata=suite:${t}`)).body), [ephemeral, ofB, ofA]);
  });

  it('OAuth: runs:read is required, and a token limited to agents sees only their runs', async () => {
    const oauth = await createOAuthFixture(fixture.server, `oa${tag()}`);
    const provider = await fixture.server.admin('POST', `/workspaces/${oauth.slug}/providers`, {
      provider: 'anthropic',
      api: 'anthropic-messages',
      baseUrl: fixture.fake.url,
      apiKey: 'sk-fake-provider-key',
      models: [{ vendorModelId: 'fake-model', label: 'Fake' }],
      isDefault: true,
    });
    assert.equal(provider.status, 201);
    const agentIn = async (name: string) =>
      (await fixture.server.admin('POST', `/workspaces/${oauth.slug}/agents`, { name, systemPrompt: 's' }))
        .body.id as string;
    const [mine, theirs] = [await agentIn('Mine'), await agentIn('Theirs')];
    const key = await fixture.server.admin('POST', `/workspaces/${oauth.slug}/api-keys`, {});
    const runIds: string[] = [];
    for (const agentId of [mine, theirs]) {
      const created = await fixture.server.request('POST', `${oauth.ws}/agent-runs`, {
        body: { agentId, prompt: 'plain' },
        headers: bearer(key.body.key),
      });
      assert.equal(created.status, 202);
      fixture.trackRun(created.body.runId, bearer(key.body.key));
      runIds.push(created.body.runId);
    }
    const limited = await obtainTokens(fixture.server, oauth, { scope: 'runs:read', agentIds: [mine] });
    const listed = await fixture.server.request('GET', `${oauth.ws}/agent-runs`, {
      headers: bearer(limited.access_token),
    });
    assert.equal(listed.status, 200);
    assert.deepEqual(ids(listed.body), [runIds[0]]);
    const noScope = await obtainTokens(fixture.server, oauth, { scope: 'sessions:read' });
    const refused = await fixture.server.request('GET', `${oauth.ws}/agent-runs`, {
      headers: bearer(noScope.access_token),
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'insufficient_scope');
    assert.equal(refused.body.required, 'runs:read');
  });
});
