import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { ConflictError } from '../../src/domain/errors.ts';
import type { RunEventType } from '../../src/domain/run-events.ts';
import type { RunOutcome } from '../../src/domain/run.ts';
import { SecretBox } from '../../src/storage/secret-box.ts';
import { PreparedQuery, type Param } from '../../src/storage/prepared-query.ts';
import { createTestWorkspace, describeOnEachEngine } from '../support/storage-suite.ts';
import { STORED_RUN_SPEC, storedRunInput } from './stored-run-spec.ts';

const ENDED: RunOutcome = {
  status: 'cancelled',
  finalText: null,
  error: null,
  failureReason: null,
  tokens: { inputTokens: 0, cachedTokens: 0, reasoningTokens: 0, outputTokens: 0 },
  turns: 0,
  model: { id: 'mock/echo', provider: 'mock', vendorModelId: 'echo' },
};

describeOnEachEngine('storage', ({ engine, storage, repos }) => {
  const newWorkspace = (slug: string) => createTestWorkspace(repos.workspaces, slug);
  const waitingRun = (workspaceId: string) => repos.runs.create(storedRunInput(workspaceId));

  /** A run admitted to a worker (its workspace has room), as the executor finds it. */
  const newRun = async (workspaceId: string) => {
    const run = await waitingRun(workspaceId);
    await repos.dispatch.admit(workspaceId);
    return run;
  };

  it('workspaces: create, find, patch, list; a duplicate slug is a conflict', async () => {
    const ws = await newWorkspace('acme');
    assert.equal((await repos.workspaces.findBySlug('acme'))?.id, ws.id);
    const patched = await repos.workspaces.update(ws.id, { name: 'Acme Inc', rateLimits: { runStart: 5 } });
    assert.equal(patched?.name, 'Acme Inc');
    assert.deepEqual(patched?.rateLimits, { runStart: 5 });
    assert.deepEqual(patched?.features, { apiKeys: true, oauthApps: true });
    await assert.rejects(newWorkspace('acme'), ConflictError);
    assert.ok((await repos.workspaces.list()).some((w) => w.slug === 'acme'));
  });

  it('api keys: stored by hash only, revocation is recorded once', async () => {
    const ws = await newWorkspace('keys');
    const key = await repos.apiKeys.create({
      workspaceId: ws.id,
      name: 'ci',
      usage: 'developer_api',
      agentIds: ['agt_x'],
      expiresAt: null,
      keyHash: 'h1',
      keyPrefix: 'svc_abcdef',
    });
    const found = await repos.apiKeys.findByHash('h1');
    assert.equal(found?.apiKey.id, key.id);
    assert.equal(found?.workspace.slug, 'keys');
    assert.deepEqual(found?.apiKey.agentIds, ['agt_x']);
    assert.equal(await repos.apiKeys.revoke(ws.id, key.id), true);
    assert.equal(await repos.apiKeys.revoke(ws.id, key.id), false);
    assert.ok((await repos.apiKeys.findByHash('h1'))?.apiKey.revokedAt);
  });

  it('workspace providers: models stored in order; one connection per provider and vendor model', async () => {
    const ws = await newWorkspace('prov');
    const box = new SecretBox('x'.repeat(32));
    const created = await repos.workspaceProviders.create({
      workspaceId: ws.id,
      provider: 'openai',
      api: 'openai-responses',
      baseUrl: null,
      apiKeySealed: box.seal('sk-secret'),
      models: [
        { vendorModelId: 'gpt-b', label: 'B', contextWindowTokens: 1000, pricing: null },
        {
          vendorModelId: 'gpt-a',
          label: 'A',
          contextWindowTokens: 2000,
          pricing: { inputPer1MUsd: 1, outputPer1MUsd: 2, cacheReadPer1MUsd: 0.5 },
        },
      ],
      defaultModel: 'gpt-a',
      isDefault: true,
    });
    const [listed] = await repos.workspaceProviders.listByWorkspace(ws.id);
    assert.equal(listed?.id, created.id);
    assert.deepEqual(
      listed?.models.map((m) => m.vendorModelId),
      ['gpt-b', 'gpt-a'],
    );
    assert.deepEqual(listed?.models[1]?.pricing, {
      inputPer1MUsd: 1,
      outputPer1MUsd: 2,
      cacheReadPer1MUsd: 0.5,
    });
    assert.equal(box.open(listed?.apiKeySealed ?? ''), 'sk-secret');
    await assert.rejects(
      repos.workspaceProviders.create({ ...created, isDefault: false, models: created.models.slice(1) }),
      ConflictError,
    );
    assert.equal(
      (await repos.workspaceProviders.listByWorkspace(ws.id)).length,
      1,
      'the failed insert left nothing',
    );
  });

  it('agents and tools: create, find, delete; slugs and names are unique per workspace', async () => {
    const ws = await newWorkspace('agents');
    const agent = await repos.agents.create({
      workspaceId: ws.id,
      slug: 'helper',
      name: 'Helper',
      systemPrompt: 'Be helpful.',
      modelId: null,
      useWorkspaceDefaultModel: true,
      reasoningLevel: 'low',
      tools: [{ kind: 'local', name: 'lookup' }],
      isSystem: false,
    });
    assert.equal((await repos.agents.findById(ws.id, agent.id))?.reasoningLevel, 'low');
    await assert.rejects(repos.agents.create({ ...agent }), ConflictError);
    const tool = await repos.workspaceTools.create({
      workspaceId: ws.id,
      name: 'weather',
      description: '',
      parameters: { type: 'object', properties: {} },
      http: { url: 'https://127.0.0.1:9/weather', method: 'POST', headers: {} },
    });
    assert.equal((await repos.workspaceTools.findById(ws.id, tool.id))?.http.method, 'POST');
    assert.equal(await repos.agents.delete(ws.id, agent.id), true);
    assert.equal(await repos.agents.findById(ws.id, agent.id), undefined);
  });

  it('runs and the event log: batches commit whole with the outcome, reads resume after a seq, a repeated seq is refused', async () => {
    const ws = await newWorkspace('runs');
    const run = await repos.runs.create({
      workspaceId: ws.id,
      agentId: null,
      sessionId: null,
      apiKeyId: null,
      spec: { ...STORED_RUN_SPEC, systemPrompt: 's' },
      metadata: { a: 'b' },
    });
    const event = (seq: number, type: RunEventType, data: unknown) => ({
      seq,
      type,
      dataJson: JSON.stringify(data),
    });
    await repos.runEvents.append([
      {
        runId: run.id,
        events: [event(1, 'assistant_delta', { text: 'he' }), event(2, 'assistant_delta', { text: 'llo' })],
      },
    ]);
    assert.equal(await repos.runEvents.lastSeq(run.id), 2);
    await assert.rejects(
      repos.runEvents.append([
        {
          runId: run.id,
          events: [event(3, 'assistant_delta', { text: 'x' }), event(2, 'assistant_delta', { text: 'dup' })],
        },
      ]),
    );
    assert.deepEqual(
      (await repos.runEvents.readAfter(run.id, 0)).map((e) => e.seq),
      [1, 2],
      'the failed batch wrote nothing',
    );
    const outcome = {
      status: 'succeeded' as const,
      finalText: 'hello',
      error: null,
      failureReason: null,
      tokens: { inputTokens: 1, cachedTokens: 0, reasoningTokens: 0, outputTokens: 2 },
      turns: 1,
      model: { id: 'mock/echo', provider: 'mock', vendorModelId: 'echo' },
    };
    await repos.runEvents.append([
      { runId: run.id, events: [event(3, 'result', { text: 'hello' })], outcome },
    ]);
    const [last] = await repos.runEvents.readAfter(run.id, 2);
    assert.deepEqual(last, { seq: 3, type: 'result', dataJson: '{"text":"hello"}' });
    const stored = await repos.runs.findById(ws.id, run.id);
    assert.equal(stored?.status, 'succeeded');
    assert.equal(stored?.finalText, 'hello');
    assert.deepEqual(stored?.tokens, outcome.tokens);
    assert.ok(stored?.endedAt);
    assert.deepEqual(stored?.metadata, { a: 'b' });
    assert.equal(await repos.runs.claimAttempt(run.id), undefined, 'an ended run cannot be claimed again');
  });

  it('checkpoints: a save fenced with an attempt that no longer owns the run writes nothing', async () => {
    const run = await newRun((await newWorkspace('checkpoints')).id);
    const first = await repos.runs.claimAttempt(run.id);
    assert.equal(await repos.checkpoints.save(run.id, 3, { by: 'first' }, first?.attempt), true);
    const second = await repos.runs.claimAttempt(run.id);
    assert.equal(second?.attempt, (first?.attempt ?? 0) + 1);
    assert.equal(await repos.checkpoints.save(run.id, 5, { by: 'first, late' }, first?.attempt), false);
    assert.deepEqual(await repos.checkpoints.load(run.id), { seq: 3, state: { by: 'first' } });
    assert.equal(await repos.checkpoints.save(run.id, 7, { by: 'second' }, second?.attempt), true);
    assert.deepEqual(await repos.checkpoints.load(run.id), { seq: 7, state: { by: 'second' } });
    assert.equal(
      await repos.checkpoints.save(run.id, 8, { by: 'unfenced' }),
      true,
      'no attempt: not checked',
    );
  });

  it('client tool calls: pending calls stored with an attempt that no longer owns the run write nothing', async () => {
    const run = await newRun((await newWorkspace('fenced-calls')).id);
    const first = await repos.runs.claimAttempt(run.id);
    const second = await repos.runs.claimAttempt(run.id);
    const call = (toolUseId: string) => [{ toolUseId, name: 'get_weather', kind: 'local' as const }];
    assert.equal(await repos.toolCalls.insertPending(run.id, call('late'), first?.attempt), false);
    assert.deepEqual(await repos.toolCalls.find(run.id, ['late']), []);
    assert.equal((await repos.runs.findState(run.workspaceId, run.id))?.status, 'running');
    assert.equal(await repos.toolCalls.insertPending(run.id, call('owned'), second?.attempt), true);
    assert.equal(
      await repos.toolCalls.insertPending(run.id, call('unfenced')),
      true,
      'no attempt: not checked',
    );
    // A newer attempt that asked the model again may store a call under an id already stored.
    assert.equal(await repos.toolCalls.insertPending(run.id, call('owned'), second?.attempt), true);
    assert.deepEqual(
      (await repos.toolCalls.find(run.id, ['late', 'owned', 'unfenced'])).map((row) => row.toolUseId).sort(),
      ['owned', 'unfenced'],
    );
  });

  it('the event log: a commit larger than one insert statement holds lands whole, in order, for every run', async () => {
    const ws = await newWorkspace('big-commit');
    const [first, second] = [await newRun(ws.id), await newRun(ws.id)];
    const events = (count: number, tag: string) =>
      Array.from({ length: count }, (_, index) => ({
        seq: index + 1,
        type: 'assistant_delta' as const,
        dataJson: JSON.stringify({ text: `${tag}${index + 1}` }),
      }));
    await repos.runEvents.append([
      { runId: first.id, events: events(170, 'a') },
      { runId: second.id, events: events(83, 'b') },
    ]);
    const firstLog = await repos.runEvents.readAfter(first.id, 0);
    assert.deepEqual(
      firstLog.map((event) => event.seq),
      Array.from({ length: 170 }, (_, index) => index + 1),
    );
    assert.equal(firstLog[169]?.dataJson, '{"text":"a170"}');
    const secondLog = await repos.runEvents.readAfter(second.id, 80, 2);
    assert.deepEqual(
      secondLog.map((event) => [event.seq, event.dataJson]),
      [
        [81, '{"text":"b81"}'],
        [82, '{"text":"b82"}'],
      ],
      'readAfter honors its cursor and its limit',
    );
  });

  it('prepared queries: each named parameter lands in its own slot and fixed values stay as built', async () => {
    const ws = await newWorkspace('prepared');
    const byName = new PreparedQuery((param: Param<'slug' | 'name'>) =>
      storage.db
        .selectFrom('workspaces')
        .select(['id', 'slug'])
        .where('name', '=', param<string>('name'))
        .where('slug', '=', param<string>('slug'))
        .where('id', '!=', 'no-such-id')
        .limit(5),
    );
    assert.deepEqual(await byName.first(storage.db, { slug: 'prepared', name: 'prepared' }), {
      id: ws.id,
      slug: 'prepared',
    });
    assert.equal(await byName.first(storage.db, { slug: 'prepared', name: 'other' }), undefined);
  });

  it('dispatch: admission takes the oldest waiting runs up to maxConcurrentRuns, a cancelled waiting run always; an ended or parked run frees its slot; a new run is admitted at once only with a free slot and nobody waiting before it', async () => {
    const ws = await createTestWorkspace(repos.workspaces, 'dispatch', 2);
    const runs: Array<{ id: string }> = [];
    for (let index = 0; index < 5; index++) runs.push(await waitingRun(ws.id));
    const [a, b, c, , e] = runs.map((run) => run.id) as [string, string, string, string, string];
    assert.equal(await repos.dispatch.hasWaiting(ws.id), true);
    assert.deepEqual(await repos.dispatch.admit(ws.id), [
      { runId: a, admission: 1 },
      { runId: b, admission: 1 },
    ]);
    assert.deepEqual(await repos.dispatch.admit(ws.id), [], 'both slots are taken');
    assert.equal(await repos.runs.claimAttempt(c), undefined, 'a waiting run cannot be claimed');
    assert.equal(await repos.runs.claimAttempt(a, 2), undefined, 'nor with another admission than its own');
    const full = await repos.runs.createAdmitting(storedRunInput(ws.id));
    assert.equal(full.admission, undefined, 'no free slot for a new run: it waits');
    assert.equal(await repos.dispatch.admitCancelled(e), undefined, 'not cancelled');
    await repos.runs.requestCancel(e);
    assert.deepEqual(
      await repos.dispatch.admitCancelled(e),
      { runId: e, admission: 1 },
      'cancelled: admitted',
    );
    const end = (runId: string) =>
      repos.runEvents.append([
        { runId, events: [{ seq: 1, type: 'cancelled', dataJson: '{}' }], outcome: ENDED },
      ]);
    await end(e);

    const claimed = await repos.runs.claimAttempt(a, 1);
    assert.ok(claimed);
    assert.equal(await repos.dispatch.park(a, claimed.attempt + 1, '2000-01-01T00:00:00.000Z'), false);
    assert.equal(await repos.dispatch.park(a, claimed.attempt, '2999-01-01T00:00:00.000Z'), true);
    assert.deepEqual(
      await repos.dispatch.admit(ws.id),
      [{ runId: c, admission: 1 }],
      'the parked run freed its slot',
    );
    assert.equal(await repos.dispatch.wake(a, '2026-01-01T00:00:00.000Z'), undefined, 'not due yet');
    assert.deepEqual(await repos.dispatch.dueParked('2999-01-01T00:00:00.000Z', 10), [
      { runId: a, wakeAt: '2999-01-01T00:00:00.000Z' },
    ]);
    assert.deepEqual(await repos.dispatch.dueParked('2998-01-01T00:00:00.000Z', 10), [], 'not due by then');
    assert.deepEqual(await repos.dispatch.answeredParked(10), [], 'no answer since it parked');
    await repos.toolCalls.insertPending(a, [{ toolUseId: 'call_1', name: 'get_weather', kind: 'local' }]);
    assert.equal((await repos.toolCalls.answer(a, 'call_1', { result: 'sunny', files: [] }))?.kind, 'local');
    assert.deepEqual(await repos.dispatch.answeredParked(10), [a], 'answered since it parked');
    assert.equal(await repos.dispatch.wake(a), ws.id, 'an answer wakes it whenever it comes');
    assert.equal(await repos.dispatch.wake(a), undefined, 'once');
    assert.ok((await repos.dispatch.workspacesWithWaiting(100)).includes(ws.id));
    assert.deepEqual(await repos.dispatch.admit(ws.id), [], 'no free slot for the woken run yet');

    await end(b);
    // b ended: the woken run a (older than d) takes its slot, in creation order.
    assert.deepEqual(await repos.dispatch.admit(ws.id), [{ runId: a, admission: 2 }]);
    assert.deepEqual(
      (await repos.dispatch.admitted(100))
        .map((run) => run.runId)
        .filter((id) => runs.some((r) => r.id === id)),
      [a, c],
    );
    assert.equal(await repos.dispatch.hasWaiting(ws.id), true, 'd still waits');
    await end(c);
    const late = await repos.runs.createAdmitting(storedRunInput(ws.id));
    assert.equal(late.admission, undefined, 'a free slot, but d waits before it: in order');
    assert.deepEqual(await repos.dispatch.admit(ws.id), [{ runId: runs[3]!.id, admission: 1 }]);
    await end(a);
    assert.deepEqual(await repos.dispatch.admit(ws.id), [{ runId: full.run.id, admission: 1 }]);
    await end(full.run.id);
    assert.deepEqual(await repos.dispatch.admit(ws.id), [{ runId: late.run.id, admission: 1 }]);
    if (engine === 'sqlite') {
      const plan = await sql<{ detail: string }>`
          explain query plan select id from runs where workspace_id = ${ws.id} and dispatch = 'waiting' order by created_at limit 10
        `.execute(storage.db);
      assert.match(plan.rows.map((row) => row.detail).join(' '), /runs_dispatch_workspace/);
    }
  });

  it('dispatch: a run created with a free slot is admitted in its insert; a burst of creations takes exactly maxConcurrentRuns slots, the rest wait in order', async () => {
    const ws = await createTestWorkspace(repos.workspaces, 'admit-at-insert', 3);
    const first = await repos.runs.createAdmitting(storedRunInput(ws.id, { origin: 'burst' }));
    assert.equal(first.admission, 1, 'admitted at once, its first admission');
    assert.ok(await repos.runs.claimAttempt(first.run.id, 1), 'claimable as its job');
    // The others at once: on PostgreSQL over several pooled connections (opened first, so that the
    // creations overlap), serialized by the workspace's lock.
    await Promise.all(Array.from({ length: 10 }, () => sql`select 1`.execute(storage.db)));
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        repos.runs.createAdmitting(storedRunInput(ws.id, index % 2 === 0 ? { origin: 'burst' } : {})),
      ),
    );
    const admitted = burst.filter((created) => created.admission !== undefined);
    assert.equal(admitted.length, 2, 'the two free slots, never more');
    const { admitted: count } = (
      await sql<{ admitted: number | string }>`
        select count(*) as admitted from runs where workspace_id = ${ws.id} and dispatch = 'admitted'
      `.execute(storage.db)
    ).rows[0]!;
    assert.equal(Number(count), 3, 'maxConcurrentRuns admitted in all');
    assert.equal(await repos.dispatch.hasWaiting(ws.id), true, 'the other ten wait');
    const metadataRows = await storage.db
      .selectFrom('run_metadata')
      .select('run_id')
      .where('workspace_id', '=', ws.id)
      .execute();
    assert.equal(metadataRows.length, 7, 'metadata rows written with their runs, admitted or not');
  });

  it('fencing: a claim takes a new attempt, and a batch written under an older attempt is refused alone', async () => {
    const ws = await newWorkspace('fence');
    const [run, other] = [await newRun(ws.id), await newRun(ws.id)];
    const first = await repos.runs.claimAttempt(run.id);
    const second = await repos.runs.claimAttempt(run.id);
    assert.equal(first?.attempt, 1);
    assert.equal(second?.attempt, 2);
    assert.equal(second?.run.status, 'running');
    const event = (seq: number) => ({ seq, type: 'assistant_delta' as const, dataJson: '{"text":"x"}' });
    const fenced = await repos.runEvents.append([
      { runId: run.id, events: [event(1)], attempt: 1 },
      { runId: other.id, events: [event(1)] },
    ]);
    assert.deepEqual([...fenced], [run.id]);
    assert.equal(await repos.runEvents.lastSeq(run.id), 0, 'the stale attempt wrote nothing');
    assert.equal(await repos.runEvents.lastSeq(other.id), 1, 'the other run of the same commit was written');
    assert.equal((await repos.runEvents.append([{ runId: run.id, events: [event(1)], attempt: 2 }])).size, 0);
    assert.equal(await repos.runEvents.lastSeq(run.id), 1);
  });

  it('server calls: a call is recorded before it runs (again is a no-op) and its outcome once, never overwritten', async () => {
    const workspace = await newWorkspace('server-calls');
    const run = await newRun(workspace.id);
    await repos.serverCalls.begin(run.id, [{ toolUseId: 'c1', name: 'search', kind: 'mcp' }]);
    await repos.serverCalls.begin(run.id, [{ toolUseId: 'c1', name: 'search', kind: 'mcp' }]);
    assert.deepEqual(await repos.serverCalls.find(run.id, ['c1']), [
      { toolUseId: 'c1', name: 'search', outcome: null },
    ]);
    const outcome = { ok: true, text: 'found', files: [] };
    await repos.serverCalls.finish(run.id, 'c1', outcome);
    await repos.serverCalls.finish(run.id, 'c1', { ok: false, text: 'later', files: [] });
    assert.deepEqual(await repos.serverCalls.find(run.id, ['c1', 'other']), [
      { toolUseId: 'c1', name: 'search', outcome },
    ]);
  });

  it('client tool calls: the answer and the expiry each hand the calls they moved out of pending to one caller only (what counts a call once)', async () => {
    const workspace = await newWorkspace('client-calls');
    const run = await newRun(workspace.id);
    await repos.toolCalls.insertPending(run.id, [
      { toolUseId: 'c1', name: 'lookup', kind: 'mcp_local' },
      { toolUseId: 'c2', name: 'lookup', kind: 'local' },
      { toolUseId: 'c3', name: 'lookup', kind: 'a2a_local' },
    ]);
    const answered = await repos.toolCalls.answer(run.id, 'c1', { error: 'no such page' });
    assert.equal(answered?.toolUseId, 'c1');
    assert.equal(answered?.kind, 'mcp_local');
    assert.equal(answered?.status, 'answered');
    assert.deepEqual(answered?.result, { error: 'no such page' });
    assert.ok(answered?.answeredAt !== null && answered?.answeredAt !== undefined);
    assert.ok(answered.answeredAt >= answered.createdAt);
    assert.equal(await repos.toolCalls.answer(run.id, 'c1', { error: 'again' }), undefined, 'answered once');
    const expired = await repos.toolCalls.expire(run.id, ['c1', 'c2', 'c3']);
    assert.deepEqual(
      expired.map((call) => [call.toolUseId, call.kind, call.status]).sort(),
      [
        ['c2', 'local', 'timed_out'],
        ['c3', 'a2a_local', 'timed_out'],
      ],
      'only the calls still pending',
    );
    assert.deepEqual(await repos.toolCalls.expire(run.id, ['c1', 'c2', 'c3']), [], 'expired once');
    assert.equal(await repos.toolCalls.answer(run.id, 'c2', { result: 'late', files: [] }), undefined);
  });

  it('stored files: bytes come back by storage key, only within their workspace', async () => {
    const workspace = await newWorkspace('stored-files');
    const other = await newWorkspace('stored-files-other');
    const run = await newRun(workspace.id);
    const data = new Uint8Array([0, 1, 2, 254, 255]);
    const key = await repos.files.put(workspace.id, run.id, {
      filename: 'a.bin',
      mimeType: 'application/octet-stream',
      data,
    });
    assert.match(key, new RegExp(`^files/${run.id}/file_`));
    const stored = await repos.files.get(workspace.id, key);
    assert.equal(stored?.filename, 'a.bin');
    assert.deepEqual([...(stored?.data ?? [])], [...data]);
    assert.equal(await repos.files.get(other.id, key), undefined);
  });

  it('deleting a workspace removes what belongs to it', async () => {
    const ws = await newWorkspace('doomed');
    await repos.agents.create({
      workspaceId: ws.id,
      slug: 'a',
      name: 'a',
      systemPrompt: 'p',
      modelId: null,
      useWorkspaceDefaultModel: false,
      reasoningLevel: null,
      tools: [],
      isSystem: false,
    });
    assert.equal(await repos.workspaces.delete(ws.id), true);
    assert.deepEqual(await repos.agents.listByWorkspace(ws.id), []);
  });
});
