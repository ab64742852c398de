import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PNG_BASE64, startSessionFixture, terminalOf, type SessionFixture } from './session-support.ts';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const tag = () => `t${randomBytes(4).toString('hex')}`;
const ids = (body: { sessions: Array<{ sessionId: string }> }) =>
  body.sessions.map((entry) => entry.sessionId);

describe('session list', () => {
  let fixture: SessionFixture;
  before(async () => {
    fixture = await startSessionFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  /** Sessions created in order, a few ms apart, all carrying `suite: <t>` plus `extra[i]`. */
  async function sessions(t: string, extra: Array<Record<string, string>>): Promise<string[]> {
    const created: string[] = [];
    for (const metadata of extra) {
      created.push(await fixture.newSession({ systemPrompt: 's', metadata: { suite: t, ...metadata } }));
      await sleep(3); // distinct creation times: a slower machine only spaces them more
    }
    return created;
  }

  it('GET {ws}/agent-sessions answers { total, limit, offset, sessions } with the documented entry fields', async () => {
    const t = tag();
    const [sessionId] = await sessions(t, [{ customer: 'c1' }]);
    const listed = await fixture.list(`?metadata=suite:${t}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(Object.keys(listed.body).sort(), ['limit', 'offset', 'sessions', 'total']);
    assert.equal(listed.body.total, 1);
    assert.equal(listed.body.limit, 50);
    assert.equal(listed.body.offset, 0);
    const [entry] = listed.body.sessions;
    assert.deepEqual(Object.keys(entry).sort(), [
      'creationDate',
      'lastInteractionDate',
      'metadata',
      'sessionId',
      'status',
      'summary',
    ]);
    assert.equal(entry.sessionId, sessionId);
    assert.match(entry.creationDate, ISO_8601);
    assert.match(entry.lastInteractionDate, ISO_8601);
    assert.deepEqual(entry.metadata, { suite: t, customer: 'c1' });
    assert.equal(entry.status, 'active');
    assert.equal(typeof entry.summary, 'string');
  });

  it('most recently used first: a session that gets a message moves to the top', async () => {
    const t = tag();
    const [a, b, c] = await sessions(t, [{}, {}, {}]);
    assert.deepEqual(ids((await fixture.list(`?metadata=suite:${t}`)).body), [c, b, a]);
    await fixture.sendMessage(a ?? '', { prompt: 'bump me' });
    assert.deepEqual(ids((await fixture.list(`?metadata=suite:${t}`)).body), [a, c, b]);
  });

  it('metadata=key:value filters are repeatable and AND-combined', async () => {
    const t = tag();
    const [webC1, emailC1, webC2] = await sessions(t, [
      { customer: 'c1', channel: 'web' },
      { customer: 'c1', channel: 'email' },
      { customer: 'c2', channel: 'web' },
    ]);
    const query = (...filters: string[]) => fixture.list(`?${filters.map((f) => `metadata=${f}`).join('&')}`);
    const c1 = await query(`suite:${t}`, 'customer:c1');
    assert.equal(c1.body.total, 2);
    assert.deepEqual(ids(c1.body), [emailC1, webC1]);
    const both = await query(`suite:${t}`, 'customer:c1', 'channel:web');
    assert.equal(both.body.total, 1);
    assert.deepEqual(ids(both.body), [webC1]);
    assert.deepEqual(ids((await query(`suite:${t}`, 'channel:web')).body), [webC2, webC1]);
    const none = await query(`suite:${t}`, 'customer:c2', 'channel:email');
    assert.equal(none.body.total, 0);
    assert.deepEqual(none.body.sessions, []);
  });

  it('a metadata filter splits at the first colon: the value may itself contain colons', async () => {
    const t = tag();
    const [withColon] = await sessions(t, [{ ref: 'crm:account:7' }, { ref: 'crm' }]);
    const listed = await fixture.list(
      `?metadata=suite:${t}&metadata=${encodeURIComponent('ref:crm:account:7')}`,
    );
    assert.deepEqual(ids(listed.body), [withColon]);
  });

  it('a malformed metadata filter (no colon, empty key, bad key) gives 400 invalid_request', async () => {
    for (const filter of ['nocolon', ':x', encodeURIComponent('bad key:x')]) {
      const listed = await fixture.list(`?metadata=${filter}`);
      assert.equal(listed.status, 400, filter);
      assert.equal(listed.body.error, 'invalid_request');
    }
    const mixed = await fixture.list('?metadata=customer:c1&metadata=nocolon');
    assert.equal(mixed.status, 400, 'one malformed entry among good ones is still refused');
  });

  it('status=active|ended filters by exact status; any other status gives 400 invalid_request', async () => {
    const t = tag();
    const [kept, ended] = await sessions(t, [{}, {}]);
    await fixture.endSession(ended ?? '');
    const active = await fixture.list(`?metadata=suite:${t}&status=active`);
    assert.deepEqual(ids(active.body), [kept]);
    assert.equal(active.body.sessions[0].status, 'active');
    const endedOnly = await fixture.list(`?metadata=suite:${t}&status=ended`);
    assert.deepEqual(ids(endedOnly.body), [ended]);
    assert.equal(endedOnly.body.sessions[0].status, 'ended');
    assert.equal((await fixture.list(`?metadata=suite:${t}`)).body.total, 2, 'no status: both');
    const bad = await fixture.list('?status=closed');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_request');
  });

  it('limit defaults to 50 and is at most 200 (201 gives 400); offset pages through a stable order', async () => {
    const t = tag();
    for (let i = 0; i < 55; i++) await fixture.newSession({ systemPrompt: 's', metadata: { suite: t } });
    const first = await fixture.list(`?metadata=suite:${t}`);
    assert.equal(first.body.total, 55);
    assert.equal(first.body.limit, 50);
    assert.equal(first.body.sessions.length, 50);
    const all = await fixture.list(`?metadata=suite:${t}&limit=200`);
    assert.equal(all.status, 200);
    assert.equal(all.body.sessions.length, 55);
    const tooMany = await fixture.list('?limit=201');
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.error, 'invalid_request');
    assert.match(tooMany.body.message, /limit: must be an integer from 1 to 200/);
    assert.match((await fixture.list('?limit=0')).body.message, /limit: must be an integer from 1 to 200/);
    assert.match((await fixture.list('?offset=-1')).body.message, /offset: must be an integer of at least 0/);
    assert.match((await fixture.list('?limit=abc')).body.message, /limit: must be an integer from 1 to 200/);
    const pages: string[] = [];
    for (const offset of [0, 20, 40]) {
      const page = await fixture.list(`?metadata=suite:${t}&limit=20&offset=${offset}`);
      assert.equal(page.body.offset, offset);
      assert.equal(page.body.total, 55, 'total is the whole filtered count, not the page');
      pages.push(...ids(page.body));
    }
    assert.equal(pages.length, 55);
    assert.deepEqual(pages, ids(all.body), 'the pages concatenate to the full listing, no repeats');
    assert.deepEqual((await fixture.list(`?metadata=suite:${t}&offset=100`)).body.sessions, []);
  });

  const summaryOf = async (sessionId: string) => (await fixture.getSession(sessionId)).body.summary as string;

  it('summary is derived from the first user prompt', async () => {
    const sessionId = await fixture.newSession();
    await fixture.sendMessage(sessionId, { prompt: 'Plan a three-day trip to Rome for two people' });
    await fixture.sendMessage(sessionId, { prompt: 'Add a day in Florence' });
    assert.equal(await summaryOf(sessionId), 'Plan a three-day trip to Rome for two people');
    const entry = (await fixture.list('?limit=200')).body.sessions.find(
      (item: { sessionId: string }) => item.sessionId === sessionId,
    );
    assert.equal(entry.summary, 'Plan a three-day trip to Rome for two people');
  });

  it('a very short opener ("hi") is extended with the following messages of the run', async () => {
    fixture.fake.enqueue({ text: ['Hello! What would you like to plan today?'] });
    const sessionId = await fixture.newSession();
    await fixture.sendMessage(sessionId, { prompt: 'hi' });
    const summary = await summaryOf(sessionId);
    assert.ok(summary.startsWith('hi'), summary);
    assert.match(summary, /What would you like to plan/);

    const withMessages = await fixture.newSession();
    await fixture.sendMessage(withMessages, {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'Book a table for four at 8pm' },
      ],
    });
    assert.match(await summaryOf(withMessages), /^hi\b.*Book a table for four/);
  });

  it('a very short opener is extended with messages of later runs when the first run was short too', async () => {
    fixture.fake.enqueue({ text: ['hey'] }, { text: ['Here it is.'] });
    const sessionId = await fixture.newSession();
    await fixture.sendMessage(sessionId, { prompt: 'hi' });
    await fixture.sendMessage(sessionId, { prompt: 'Summarize the quarterly sales report' });
    assert.match(await summaryOf(sessionId), /quarterly sales report/, 'a "hi / hey" label says nothing');
  });
});

describe('session replay', () => {
  let fixture: SessionFixture;
  let sessionId: string;
  const pngSize = Buffer.from(PNG_BASE64, 'base64').length;
  before(async () => {
    fixture = await startSessionFixture('anthropic-messages');
    fixture.fake.enqueue({ text: ['I see a dot.'] }, { text: ['It is 1x1.'] });
    sessionId = await fixture.newSession();
    const first = await fixture.sendMessage(sessionId, {
      messages: [
        {
          role: 'user',
          content: 'What is in these?',
          attachments: [
            { type: 'input_file', mimeType: 'image/png', filename: 'dot.png', data: PNG_BASE64 },
            {
              type: 'input_file_url',
              url: 'https://127.0.0.1:9/report.pdf',
              mimeType: 'application/pdf',
              filename: 'report.pdf',
            },
            { type: 'input_file_url', url: 'https://127.0.0.1:9/unnamed', mimeType: 'application/pdf' },
          ],
        },
      ],
    });
    const second = await fixture.sendMessage(sessionId, { prompt: 'How big?' });
    for (const { frames } of [first, second]) {
      if (terminalOf(frames)?.type !== 'result')
        throw new Error(`setup run: ${JSON.stringify(terminalOf(frames))}`);
    }
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('the full replay is { sessionId, total, events } of user_message/assistant_message frames in order', async () => {
    const replay = await fixture.replay(sessionId);
    assert.equal(replay.status, 200);
    assert.deepEqual(Object.keys(replay.body).sort(), ['events', 'sessionId', 'total']);
    assert.equal(replay.body.sessionId, sessionId);
    assert.equal(replay.body.total, 4);
    const [first, second, third, fourth] = replay.body.events;
    const seq0 = first.seq;
    assert.deepEqual(second, { seq: seq0 + 1, type: 'assistant_message', text: 'I see a dot.' });
    assert.deepEqual(
      third,
      { seq: seq0 + 2, type: 'user_message', text: 'How big?' },
      'no attachments key without files',
    );
    assert.deepEqual(fourth, { seq: seq0 + 3, type: 'assistant_message', text: 'It is 1x1.' });
    assert.equal(first.type, 'user_message');
    assert.equal(first.text, 'What is in these?');
  });

  it('user_message attachments carry metadata only: input_file { mimeType, filename, size }, input_file_url { url, ... }', async () => {
    const replay = await fixture.replay(sessionId);
    assert.deepEqual(replay.body.events[0].attachments, [
      { type: 'input_file', mimeType: 'image/png', filename: 'dot.png', size: pngSize },
      {
        type: 'input_file_url',
        url: 'https://127.0.0.1:9/report.pdf',
        mimeType: 'application/pdf',
        filename: 'report.pdf',
      },
      { type: 'input_file_url', url: 'https://127.0.0.1:9/unnamed', mimeType: 'application/pdf' },
    ]);
    assert.ok(!JSON.stringify(replay.body).includes(PNG_BASE64), 'base64 data is never replayed');
    assert.ok(!JSON.stringify(replay.body).includes('"data"'));
  });

  it('lastMessages=2 returns the last two messages with the same seq as the full listing; total stays whole', async () => {
    const full = (await fixture.replay(sessionId)).body;
    const last = await fixture.replay(sessionId, '?lastMessages=2');
    assert.equal(last.status, 200);
    assert.equal(last.body.total, 4, 'total is the whole session, not the page');
    assert.deepEqual(last.body.events, full.events.slice(-2));
    assert.deepEqual((await fixture.replay(sessionId, '?lastMessages=3')).body.events, full.events.slice(-3));
    assert.deepEqual((await fixture.replay(sessionId, '?lastMessages=10')).body.events, full.events);
  });

  it('full=1 (or true) wins over lastMessages', async () => {
    const full = (await fixture.replay(sessionId)).body;
    for (const query of ['?full=1&lastMessages=1', '?lastMessages=1&full=true']) {
      const replay = await fixture.replay(sessionId, query);
      assert.deepEqual(replay.body.events, full.events, query);
      assert.equal(replay.body.total, 4);
    }
  });
});
