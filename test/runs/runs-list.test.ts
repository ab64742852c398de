import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { eventually } from '../support/waits.ts';
import { postToolResult, snapshotOf, WEATHER_TOOL } from '../tools/tool-support.ts';
import { ids, ISO_8601, runsListHelpers, scriptByPrompt, tag, type ListEntry } from './runs-list-support.ts';

describe('runs list: GET {ws}/agent-runs (extensions §4)', { timeout: 180_000 }, () => {
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

  const { list, run, endedRuns, statusOf } = runsListHelpers(() => fixture);

  it('answers { runs, nextCursor } with the entry fields; tokens and turns stay null until the run ends', async () => {
    scriptByPrompt(fixture);
    const t = tag();
    const waiting = await run({ prompt: 'please-call-tool', tools: [WEATHER_TOOL], metadata: { suite: t } });
    const watch = await fixture.watchRun(waiting);
    await watch.waitForType('local_tool_call');
    const listed = await list(`?metadata=suite:${t}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(Object.keys(listed.body).sort(), ['nextCursor', 'runs']);
    assert.equal(listed.body.nextCursor, null);
    const [entry] = listed.body.runs as ListEntry[];
    assert.deepEqual(Object.keys(entry ?? {}).sort(), [
      'agentId',
      'createdAt',
      'endedAt',
      'metadata',
      'model',
      'runId',
      'sessionId',
      'status',
      'tokens',
      'turns',
    ]);
    assert.equal(entry?.runId, waiting);
    assert.equal(entry?.status, 'waiting');
    assert.equal(entry?.agentId, null);
    assert.equal(entry?.sessionId, null);
    assert.match(entry?.createdAt, ISO_8601);
    assert.deepEqual(
      [entry?.endedAt, entry?.tokens, entry?.turns, entry?.model],
      [null, null, null, null],
      'not ended: endedAt, tokens, turns and model are null',
    );
    assert.deepEqual(entry?.metadata, { suite: t });

    assert.equal(
      (await postToolResult(fixture, waiting, { toolUseId: 'toolu_w', result: '21C' })).status,
      200,
    );
    await watch.ended;
    const [ended] = (await list(`?metadata=suite:${t}`)).body.runs as ListEntry[];
    assert.equal(ended?.status, 'succeeded');
    assert.match(ended?.endedAt, ISO_8601);
    assert.equal(ended?.turns, 2);
    assert.deepEqual(Object.keys(ended?.tokens).sort(), [
      'cachedTokens',
      'inputTokens',
      'outputTokens',
      'reasoningTokens',
    ]);
    assert.equal(ended?.model.vendorModelId, 'fake-model');
  });

  it('newest first; cursor pages have no duplicates or gaps, and runs created while paging do not shift them', async () => {
    const t = tag();
    const created = await endedRuns(t, 5);
    const newestFirst = [...created].reverse();
    const first = await list(`?metadata=suite:${t}&limit=2`);
    assert.deepEqual(ids(first.body), newestFirst.slice(0, 2));
    assert.equal(typeof first.body.nextCursor, 'string');
    const newer = await endedRuns(t, 2); // created between two page reads
    const second = await list(`?metadata=suite:${t}&limit=2&cursor=${first.body.nextCursor}`);
    assert.deepEqual(ids(second.body), newestFirst.slice(2, 4));
    const third = await list(`?metadata=suite:${t}&limit=2&cursor=${second.body.nextCursor}`);
    assert.deepEqual(ids(third.body), newestFirst.slice(4));
    assert.equal(third.body.nextCursor, null, 'null after the last page');
    const again = await list(`?metadata=suite:${t}&limit=200`);
    assert.deepEqual(
      ids(again.body),
      [...newer.reverse(), ...newestFirst],
      'a fresh first page has the new runs',
    );
    assert.equal(again.body.nextCursor, null);

    // Without a filter too: the whole workspace walked page by page sees every run exactly once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200);
      seen.push(...ids(page.body));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    assert.equal(new Set(seen).size, seen.length, 'no run twice');
    for (const runId of [...created, ...newer]) assert.ok(seen.includes(runId), runId);
    const dates = await Promise.all(
      seen.map(async (runId) => (await snapshotOf(fixture, runId)).body.createdAt),
    );
    assert.deepEqual(dates, [...dates].sort().reverse(), 'newest first by creation time');
  });

  it('limit: default 50, at most 200; an exact last page has nextCursor null', async () => {
    const t = tag();
    await endedRuns(t, 2);
    const exact = await list(`?metadata=suite:${t}&limit=2`);
    assert.equal(exact.body.runs.length, 2);
    assert.equal(exact.body.nextCursor, null);
    assert.equal((await list('?limit=200')).status, 200);
    assert.equal((await list('?limit=1')).body.runs.length, 1);
    const all = await list('');
    assert.ok(all.body.runs.length <= 50);
  });

  it('status filters by the stored status, repeatable (any of), including waiting, failed, cancelled and queued', async () => {
    scriptByPrompt(fixture);
    const t = tag();
    const metadata = { suite: t };
    const [succeeded] = await endedRuns(t, 1);
    const failed = await run({ prompt: 'please-fail', metadata });
    await (
      await fixture.watchRun(failed)
    ).ended;
    const waiting = await run({ prompt: 'please-call-tool', tools: [WEATHER_TOOL], metadata });
    await (await fixture.watchRun(waiting)).waitForType('local_tool_call');
    const hanging = await run({ prompt: 'please-hang', metadata });
    await fixture.fake.waitUntil(
      () => fixture.fake.requests.some((request) => JSON.stringify(request.body).includes('please-hang')),
      'the hanging run reached the provider',
    );
    const cancelled = await run({ prompt: 'please-hang', metadata });
    await eventually(async () => (await statusOf(cancelled)) === 'running', 'the second hanging run runs');
    await fixture.server.request('POST', `${fixture.ws}/agent-runs/${cancelled}/cancel`, {
      headers: fixture.headers,
    });
    await (
      await fixture.watchRun(cancelled)
    ).ended;

    const byStatus = async (...statuses: string[]) =>
      ids(
        (await list(`?metadata=suite:${t}&${statuses.map((status) => `status=${status}`).join('&')}`)).body,
      );
    assert.deepEqual(await byStatus('succeeded'), [succeeded]);
    assert.deepEqual(await byStatus('failed'), [failed]);
    assert.deepEqual(await byStatus('waiting'), [waiting]);
    assert.deepEqual(await byStatus('running'), [hanging]);
    assert.deepEqual(await byStatus('cancelled'), [cancelled]);
    assert.deepEqual(await byStatus('failed', 'waiting', 'succeeded'), [waiting, failed, succeeded]);
    assert.deepEqual(await byStatus('queued'), []);
    // Without the metadata filter: the status index alone.
    assert.ok(ids((await list('?status=waiting')).body).includes(waiting));
    assert.ok(!ids((await list('?status=running')).body).includes(waiting));

    // A workspace at its concurrency limit holds a new run `queued`.
    const limited = await fixture.server.admin('PATCH', `/workspaces/${fixture.slug}`, {
      maxConcurrentRuns: 1,
    });
    assert.equal(limited.status, 200, JSON.stringify(limited.body));
    try {
      const queued = await run({ metadata });
      assert.deepEqual(await byStatus('queued'), [queued]);
      assert.equal(await statusOf(queued), 'queued');
    } finally {
      await fixture.server.admin('PATCH', `/workspaces/${fixture.slug}`, { maxConcurrentRuns: 100 });
    }
  });

  it('agentId, sessionId and metadata filter, and combine with AND', async () => {
    scriptByPrompt(fixture);
    const t = tag();
    const [aWeb] = await endedRuns(t, 1, { agentId: agentA, metadata: { suite: t, channel: 'web' } });
    const [aMail] = await endedRuns(t, 1, { agentId: agentA, metadata: { suite: t, channel: 'email' } });
    const [bWeb] = await endedRuns(t, 1, { agentId: agentB, metadata: { suite: t, channel: 'web' } });
    const failedA = await run({
      agentId: agentA,
      prompt: 'please-fail',
      metadata: { suite: t, channel: 'web' },
    });
    await (
      await fixture.watchRun(failedA)
    ).ended;

    const query = async (q: string) => {
      const answer = await list(`?metadata=suite:${t}&${q}`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return ids(answer.body);
    };
    assert.deepEqual(await query(`agentId=${agentA}`), [failedA, aMail, aWeb]);
    assert.deepEqual(await query(`agentId=${agentB}`), [bWeb]);
    assert.deepEqual(await query('metadata=channel:web'), [failedA, bWeb, aWeb]);
    assert.deepEqual(await query(`metadata=channel:web&agentId=${agentA}`), [failedA, aWeb]);
    assert.deepEqual(await query(`metadata=channel:web&agentId=${agentA}&status=succeeded`), [aWeb]);
    assert.deepEqual(await query('metadata=channel:fax'), []);
    // The agent's index alone (no metadata filter): every run listed is the agent's.
    const onlyA = (await list(`?agentId=${agentA}&limit=200`)).body.runs as ListEntry[];
    assert.ok(onlyA.every((entry) => entry.agentId === agentA));
    assert.ok(onlyA.some((entry) => entry.runId === aMail));

    const session = await fixture.server.request('POST', `${fixture.ws}/agent-sessions`, {
      body: { systemPrompt: 's', metadata: { suite: t } },
      headers: fixture.headers,
    });
    const sessionId = session.body.sessionId as string;
    const sessionRuns: string[] = [];
    for (const prompt of ['one', 'two']) {
      const message = await fixture.server.request(
        'POST',
        `${fixture.ws}/agent-sessions/${sessionId}/messages`,
        {
          body: { prompt },
          headers: fixture.headers,
        },
      );
      assert.equal(message.status, 202, JSON.stringify(message.body));
      fixture.trackRun(message.body.runId);
      await (
        await fixture.watchRun(message.body.runId)
      ).ended;
      sessionRuns.push(message.body.runId);
    }
    const bySession = (await list(`?sessionId=${sessionId}`)).body.runs as ListEntry[];
    assert.deepEqual(
      bySession.map((entry) => entry.runId),
      [...sessionRuns].reverse(),
    );
    assert.ok(bySession.every((entry) => entry.sessionId === sessionId));
    assert.deepEqual(bySession[0]?.metadata, { suite: t }, "the run keeps the session's metadata");
    assert.deepEqual(await query(`sessionId=${sessionId}`), [...sessionRuns].reverse());
  });

  it('a malformed query is 400 invalid_request with a precise message', async () => {
    const forged = Buffer.from(
      JSON.stringify({ createdAt: '2026-01-01T00:00:00.000Z', id: 'nope' }),
    ).toString('base64url');
    const extraField = Buffer.from(
      JSON.stringify({ createdAt: '2026-01-01T00:00:00.000Z', id: 'run_01jzzzzzzzzzzzzzzzzzzzzzzz', x: 1 }),
    ).toString('base64url');
    const cases: Array<[string, RegExp]> = [
      ['?status=bogus', /^status\.0: must be one of queued, running, waiting, succeeded, failed, cancelled/],
      ['?status=running&status=Done', /^status\.1: must be one of/],
      ['?limit=0', /^limit: must be an integer from 1 to 200/],
      ['?limit=201', /^limit: must be an integer from 1 to 200/],
      ['?limit=ten', /^limit: must be an integer from 1 to 200/],
      ['?limit=2.5', /^limit: must be an integer from 1 to 200/],
      ['?cursor=not*base64', /^cursor: is not a cursor this list returned/],
      ['?cursor=bm90IGpzb24', /^cursor: is not a cursor this list returned/],
      [`?cursor=${forged}`, /^cursor: is not a cursor this list returned/],
      [`?cursor=${extraField}`, /^cursor: is not a cursor this list returned/],
      ['?metadata=nocolon', /^metadata\.0: 'nocolon' is not key:value/],
      ['?metadata=:value', /^metadata\.0: ':value' is not key:value/],
      ['?agentId=not-an-agent', /^agentId: 'not-an-agent' is not an agent id/],
      [`?agentId=${agentA}&agentId=${agentB}`, /^agentId: must be one agent id/],
      ['?sessionId=ses_x', /^sessionId: 'ses_x' is not a session id/],
    ];
    const nul = await fixture.createRun({ systemPrompt: 's', prompt: 'plain', metadata: { k: 'a\u0000b' } });
    assert.equal(nul.status, 400, 'metadata is stored as rows: U+0000 is refused at creation');
    assert.match(nul.body.message, /k: must not contain the NUL character/);
    for (const [query, message] of cases) {
      const answer = await list(query);
      assert.equal(answer.status, 400, query);
      assert.equal(answer.body.error, 'invalid_request', query);
      assert.match(answer.body.message, message, query);
    }
  });
});
