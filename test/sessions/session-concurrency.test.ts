import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Session } from '../../src/domain/session.ts';
import type { RunCredential } from '../../src/engine/lifecycle/agent-access.ts';
import { SessionService } from '../../src/engine/lifecycle/session-service.ts';
import { SessionRepository } from '../../src/storage/repositories/session-repository.ts';
import { testToolCatalog } from '../support/tool-catalog.ts';
import { readAll } from '../support/sse-client.ts';
import { deferred, type Deferred } from '../support/waits.ts';
import {
  eventually,
  startSessionFixture,
  terminalOf,
  transcript,
  type SessionFixture,
} from './session-support.ts';

type PausePoint = 'findById' | 'beforeClaim';

/** The real session repository, able to pause once: after a session read, or before a claim. */
class PausableSessionRepository extends SessionRepository {
  pause: { at: PausePoint; reached: Deferred; release: Promise<void> } | undefined;
  async #maybePause(at: PausePoint) {
    const pause = this.pause;
    if (pause?.at !== at) return;
    this.pause = undefined;
    pause.reached.resolve();
    await pause.release;
  }
  override async findById(workspaceId: string, id: string): Promise<Session | undefined> {
    const session = await super.findById(workspaceId, id);
    await this.#maybePause('findById');
    return session;
  }
  override async claimForRun(sessionId: string, runId: string): Promise<boolean> {
    await this.#maybePause('beforeClaim');
    return super.claimForRun(sessionId, runId);
  }
}

describe('one run at a time per session', () => {
  let fixture: SessionFixture;
  before(async () => {
    fixture = await startSessionFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('two simultaneous messages on one session: exactly one 202 and one 409 session_busy', async () => {
    // The accepted run is answered only once both posts were answered.
    const bothAnswered = deferred();
    fixture.fake.enqueue({ text: ['first answer'], holdUntil: bothAnswered.promise }, { text: ['unused'] });
    const sessionId = await fixture.newSession();
    const responses = await Promise.all([
      fixture.postMessage(sessionId, { prompt: 'one' }),
      fixture.postMessage(sessionId, { prompt: 'two' }),
    ]);
    bothAnswered.resolve();
    const statuses = responses.map((response) => response.status).sort();
    assert.deepEqual(statuses, [202, 409]);
    const busy = responses.find((response) => response.status === 409);
    assert.equal(busy?.body.error, 'session_busy');
    assert.equal(typeof busy?.body.message, 'string');
    const accepted = responses.find((response) => response.status === 202);
    assert.equal(
      terminalOf(await readAll(fixture.streamUrl(accepted?.body.runId), fixture.headers))?.type,
      'result',
    );
    assert.equal(fixture.fake.requests.length, 1, 'the refused message never reached the provider');
    assert.equal((await fixture.replay(sessionId)).body.total, 2, 'only the accepted run was appended');
  });

  it('after the run in flight ends, the next message is accepted', async () => {
    const refused = deferred();
    fixture.fake.enqueue({ text: ['slow'], holdUntil: refused.promise }, { text: ['next'] });
    const sessionId = await fixture.newSession();
    const first = await fixture.startMessage(sessionId, { prompt: 'first' });
    const busy = await fixture.postMessage(sessionId, { prompt: 'too early' });
    refused.resolve();
    assert.equal(busy.status, 409);
    assert.equal(busy.body.error, 'session_busy');
    assert.equal(terminalOf(await first.ended)?.type, 'result');
    const next = await fixture.postMessage(sessionId, { prompt: 'second' });
    assert.equal(next.status, 202);
    assert.equal(
      terminalOf(await readAll(fixture.streamUrl(next.body.runId), fixture.headers))?.type,
      'result',
    );
  });

  it('history is not interleaved: rounds with refused concurrent posts replay as user/assistant pairs in order', async () => {
    const sessionId = await fixture.newSession();
    for (let round = 0; round < 4; round++) {
      const allAnswered = deferred();
      fixture.fake.enqueue({ text: [`answer ${round}`], holdUntil: allAnswered.promise });
      const responses = await Promise.all(
        [0, 1, 2].map((index) => fixture.postMessage(sessionId, { prompt: `question ${round}.${index}` })),
      );
      allAnswered.resolve();
      const accepted = responses.filter((response) => response.status === 202);
      assert.equal(accepted.length, 1, `round ${round}: one message accepted`);
      for (const refused of responses.filter((response) => response.status !== 202)) {
        assert.equal(refused.body.error, 'session_busy');
      }
      await readAll(fixture.streamUrl(accepted[0]?.body.runId), fixture.headers);
    }
    const replay = await fixture.replay(sessionId);
    assert.equal(replay.body.total, 8);
    const events = replay.body.events as Array<{ seq: number; type: string; text: string }>;
    assert.deepEqual(
      events.map((event) => event.type),
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? 'user_message' : 'assistant_message')),
    );
    events.forEach((event, index) => {
      if (index > 0) assert.equal(event.seq, (events[index - 1]?.seq ?? 0) + 1, 'seq ascends without gaps');
      if (event.type === 'user_message')
        assert.match(event.text, new RegExp(`^question ${index / 2}\\.[012]$`));
      else assert.equal(event.text, `answer ${(index - 1) / 2}`);
    });
    // The last run saw exactly the accepted rounds before it, in order.
    const seen = transcript(fixture.fake.requests.at(-1));
    assert.deepEqual(
      seen,
      events
        .slice(0, 6)
        .map((e) => `${e.type === 'user_message' ? 'user' : 'assistant'}: ${e.text}`)
        .concat(`user: ${events[6]?.text}`),
    );
  });

  it('a client retrying on session_busy: the message accepted right after the previous run sees its turns', async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      fixture.fake.reset();
      fixture.fake.enqueue({ text: [`reply A${attempt}`], firstChunkDelayMs: 40 }, { text: ['reply B'] });
      const sessionId = await fixture.newSession();
      const first = await fixture.startMessage(sessionId, { prompt: `A${attempt}` });
      // Four retry loops post B until one is accepted, as an impatient client would.
      let acceptedRunId: string | undefined;
      await Promise.all(
        [0, 1, 2, 3].map(async () => {
          while (acceptedRunId === undefined) {
            const posted = await fixture.postMessage(sessionId, { prompt: 'B' });
            if (posted.status === 202) acceptedRunId = posted.body.runId;
            else assert.equal(posted.body.error, 'session_busy');
          }
        }),
      );
      await first.ended;
      await readAll(fixture.streamUrl(acceptedRunId ?? ''), fixture.headers);
      assert.deepEqual(
        transcript(fixture.fake.requests[1]),
        [`user: A${attempt}`, `assistant: reply A${attempt}`, 'user: B'],
        `attempt ${attempt}: the accepted message must see the previous run's turns`,
      );
    }
  });
});

describe('session races, with one real read paused to force the interleaving', () => {
  let fixture: SessionFixture;
  let repository: PausableSessionRepository;
  let service: SessionService;
  let credential: RunCredential;
  before(async () => {
    fixture = await startSessionFixture('anthropic-messages');
    const { repos, catalog, storage, engine } = fixture.server.service.resources;
    repository = new PausableSessionRepository(storage.db);
    service = new SessionService({
      sessions: repository,
      agents: repos.agents,
      resolver: catalog,
      toolCatalog: testToolCatalog(repos),
      runs: engine.runs,
    });
    const workspace = await repos.workspaces.findBySlug(fixture.slug);
    credential = { workspaceId: workspace?.id ?? '', apiKeyId: null, agentAllowlist: [] };
  });
  after(() => fixture.close());
  afterEach(async () => {
    repository.pause = undefined; // one a failed test did not reach must not stop the next test
    await fixture.cleanUp();
  });

  it('a message validated while the previous run was in flight, claiming after it ended, replays that run', async () => {
    // A is answered only once B, validated meanwhile, waits to claim the session.
    const release = deferred();
    const reached = deferred();
    fixture.fake.enqueue({ text: ['reply A'], holdUntil: reached.promise }, { text: ['reply B'] });
    const sessionId = await fixture.newSession();
    const first = await fixture.startMessage(sessionId, { prompt: 'A' });
    repository.pause = { at: 'beforeClaim', reached, release: release.promise };
    const second = service.message(credential, sessionId, { prompt: 'B' });
    await reached.promise;
    await first.ended;
    await eventually(
      async () => (await fixture.getSession(sessionId)).body.activeRunId === null,
      'A released',
    );
    release.resolve();
    const run = await second; // accepted: the session was free when it claimed it
    fixture.trackRun(run.id);
    assert.equal(terminalOf(await readAll(fixture.streamUrl(run.id), fixture.headers))?.type, 'result');
    assert.deepEqual(transcript(fixture.fake.requests[1]), ['user: A', 'assistant: reply A', 'user: B']);
  });

  it('DELETE while a message is between its claim and its run: the in-flight run is still cancelled', async () => {
    // The model never answers: the run can only end by its cancel.
    fixture.fake.enqueue({ type: 'hang' });
    const sessionId = await fixture.newSession();
    const reachedCreate = deferred();
    const release = deferred();
    const runs = fixture.server.service.resources.engine.runs;
    const gatedRuns = Object.create(runs) as typeof runs;
    gatedRuns.create = async (...args: Parameters<typeof runs.create>) => {
      reachedCreate.resolve();
      await release.promise;
      return runs.create(...args);
    };
    gatedRuns.cancel = (...args: Parameters<typeof runs.cancel>) => runs.cancel(...args);
    const gated = new SessionService({
      sessions: repository,
      agents: fixture.server.service.resources.repos.agents,
      resolver: fixture.server.service.resources.catalog,
      toolCatalog: testToolCatalog(fixture.server.service.resources.repos),
      runs: gatedRuns,
    });
    const message = gated.message(credential, sessionId, { prompt: 'in flight' });
    await reachedCreate.promise;
    assert.equal((await fixture.endSession(sessionId)).status, 200);
    release.resolve();
    const run = await message;
    fixture.trackRun(run.id);
    const frames = await readAll(fixture.streamUrl(run.id), fixture.headers);
    assert.equal(
      terminalOf(frames)?.type,
      'cancelled',
      'the run claimed before the delete must be cancelled',
    );
    assert.equal((await fixture.replay(sessionId)).body.total, 0, 'nothing is appended to the ended session');
  });

  it('a message arriving while DELETE reads the session is refused (409 session_ended) or its run is cancelled', async () => {
    // The model never answers: a run let in can only end by its cancel.
    fixture.fake.enqueue({ type: 'hang' });
    const sessionId = await fixture.newSession();
    const release = deferred();
    const reached = deferred();
    repository.pause = { at: 'findById', reached, release: release.promise };
    const ending = service.end(credential.workspaceId, sessionId);
    await reached.promise;
    const message = await fixture.postMessage(sessionId, { prompt: 'slipped in' });
    release.resolve();
    assert.equal((await ending).status, 'ended');
    if (message.status === 409) {
      assert.equal(message.body.error, 'session_ended');
    } else {
      assert.equal(message.status, 202);
      const frames = await readAll(fixture.streamUrl(message.body.runId), fixture.headers);
      assert.equal(
        terminalOf(frames)?.type,
        'cancelled',
        'a run in flight when the session ended must be cancelled',
      );
    }
    assert.equal((await fixture.replay(sessionId)).body.total, 0, 'nothing is appended to the ended session');
    assert.equal((await fixture.getSession(sessionId)).body.status, 'ended');
  });

  it('sanity: the paused repository itself behaves like the real one when not paused', async () => {
    const sessionId = await fixture.newSession();
    const run = await service.message(credential, sessionId, { prompt: 'plain' });
    fixture.trackRun(run.id);
    assert.equal(terminalOf(await readAll(fixture.streamUrl(run.id), fixture.headers))?.type, 'result');
    assert.equal((await fixture.replay(sessionId)).body.total, 2);
  });
});
