import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestLeftovers } from '../support/run-cleanup.ts';
import { bearer } from '../support/test-server.ts';
import { startClientFixture, type ClientFixture } from './client-fixture.ts';
import { startCuttingProxy, type CuttingProxy } from './cutting-proxy.ts';

/**
 * Extensions §5, end to end: "The client SDK sends a key on every creation by default, so its
 * retries are safe." The answer of the first attempt is lost on the wire after the service created
 * the run; the client's retry, with the same generated key, gets the same run.
 */
describe('client retries of creations against the real service', () => {
  let fixture: ClientFixture;
  const proxies: CuttingProxy[] = [];
  const leftovers = new TestLeftovers();

  before(async () => {
    fixture = await startClientFixture('sdk-idem');
  });
  after(async () => {
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await leftovers.cleanUp();
    await fixture.close();
  });

  const countOf = async (table: 'runs' | 'sessions') => {
    const row = await fixture.server.service.resources.storage.db
      .selectFrom(table)
      .innerJoin('workspaces', 'workspaces.id', `${table}.workspace_id`)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspaces.slug', '=', fixture.slug)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  /** A client whose first connection loses the answer after its first byte (the request was served). */
  const clientCutOnce = async () => {
    const proxy = await startCuttingProxy(fixture.server.baseUrl, (connection) =>
      connection === 1 ? { action: 'cut', afterBytes: 1 } : { action: 'pass' },
    );
    proxies.push(proxy);
    return { client: fixture.clientWith({ baseUrl: proxy.baseUrl }), proxy };
  };

  it('an answer cut after the run (or session) was created: the retry answers the same one, and only one exists', async () => {
    const runs = await clientCutOnce();
    const runsBefore = await countOf('runs');
    const created = await runs.client.runs.create({ systemPrompt: 's', prompt: 'once' });
    assert.equal(runs.proxy.connections, 2, 'the cut answer was retried on a new connection');
    const ws = `/api/v1/workspaces/${fixture.slug}`;
    leftovers.trackRun({ server: fixture.server, ws, runId: created.runId, headers: bearer(fixture.key) });
    assert.equal(await countOf('runs'), runsBefore + 1);

    const sessions = await clientCutOnce();
    const sessionsBefore = await countOf('sessions');
    const session = await sessions.client.sessions.create({ systemPrompt: 's' });
    assert.match(session.sessionId, /^ses_/);
    assert.equal(sessions.proxy.connections, 2, 'the cut answer was retried on a new connection');
    assert.equal(await countOf('sessions'), sessionsBefore + 1);
  });
});
