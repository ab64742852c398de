import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createAgent } from '../a2a/a2a-support.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { blocksOf, bodyOf, toolResultText, transcript } from '../sessions/session-support.ts';
import { agUiPath, eventsOf, frontEnd, runOnce, userMessage } from './ag-ui-support.ts';

const SYSTEM_PROMPT = 'You are the concierge. Answer briefly.';

describe('AG-UI endpoint (extensions §11): runs streamed as AG-UI events', { timeout: 120_000 }, () => {
  let fixture: RunFixture;
  const agent = (slug = 'concierge', threadId?: string) =>
    frontEnd(fixture.server, fixture.slug, slug, fixture.headers, threadId);
  const post = (slug: string, body: unknown) =>
    fixture.server.request('POST', agUiPath(fixture.slug, slug), { headers: fixture.headers, body });
  const sessionsOfThread = async (threadId: string) => {
    const listed = await fixture.server.request(
      'GET',
      `${fixture.ws}/agent-sessions?metadata=${encodeURIComponent(`ag-ui.threadId:${threadId}`)}`,
      { headers: fixture.headers },
    );
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return listed.body.sessions as Array<{ sessionId: string }>;
  };

  before(async () => {
    fixture = await startRunFixture('anthropic-messages');
    await createAgent(fixture.server, fixture.slug, {
      name: 'Concierge',
      systemPrompt: SYSTEM_PROMPT,
      tools: [{ kind: 'svc_plugin', name: 'current_time' }],
    });
    await createAgent(fixture.server, fixture.slug, {
      name: 'Thinker',
      systemPrompt: 'Think first.',
      reasoningLevel: 'high',
    });
    await createAgent(fixture.server, fixture.slug, {
      name: 'Local Tools',
      slug: 'local-tools',
      systemPrompt: 's',
      tools: [{ kind: 'local', name: 'pick_file' }],
    });
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('text: RUN_STARTED echoes the input runId with the service run id in rawEvent and metadata, then one text message, then RUN_FINISHED with the result and usage', async () => {
    fixture.fake.enqueue({ text: ['Hello ', 'there.'] });
    const front = agent();
    front.messages = [userMessage('Hi')];
    const run = await runOnce(front, { runId: 'front-run-1' });
    assert.equal(run.error, undefined);
    assert.deepEqual(run.types, [
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    const [started] = eventsOf(run, 'RUN_STARTED');
    assert.equal(started?.runId, 'front-run-1');
    assert.equal(started?.threadId, front.threadId);
    assert.match(started?.rawEvent.runId, /^run_/);
    assert.equal(started?.metadata['agent-runs/runId'], started?.rawEvent.runId);
    fixture.trackRun(started?.rawEvent.runId);
    const [finished] = eventsOf(run, 'RUN_FINISHED');
    assert.equal(finished?.runId, 'front-run-1');
    assert.equal(finished?.result, 'Hello there.');
    assert.equal(finished?.outcome.type, 'success');
    assert.equal(finished?.usage[0].provider, 'anthropic');
    const snapshot = await fixture.server.request(
      'GET',
      `${fixture.ws}/agent-runs/${started?.rawEvent.runId}`,
      {
        headers: fixture.headers,
      },
    );
    assert.equal(snapshot.body.metadata['ag-ui.runId'], 'front-run-1');
    const last = front.messages.at(-1);
    assert.equal(last?.role, 'assistant');
    assert.equal(last?.content, 'Hello there.');
  });

  it('reasoning: thinking streams as REASONING_START / _MESSAGE_START / _CONTENT / _MESSAGE_END / _END before the text', async () => {
    fixture.fake.enqueue({ thinking: ['Weighing ', 'it.'], text: ['Answer.'] });
    const front = agent('thinker');
    front.messages = [userMessage('Think.')];
    const run = await runOnce(front);
    assert.equal(run.error, undefined);
    assert.deepEqual(run.types, [
      'RUN_STARTED',
      'REASONING_START',
      'REASONING_MESSAGE_START',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    assert.equal(
      eventsOf(run, 'REASONING_MESSAGE_CONTENT')
        .map((event) => event.delta)
        .join(''),
      'Weighing it.',
    );
  });

  it('server tool: TOOL_CALL_START / _ARGS / _END and TOOL_CALL_RESULT for a tool the service runs, then the reply', async () => {
    fixture.fake.enqueue(
      {
        text: ['Checking.'],
        toolCalls: [{ id: 'toolu_t1', name: 'current_time', input: { timeZone: 'Asia/Tokyo' } }],
      },
      { text: ['It is late in Tokyo.'] },
    );
    const front = agent();
    front.messages = [userMessage('Time in Tokyo?')];
    const run = await runOnce(front);
    assert.equal(run.error, undefined);
    assert.deepEqual(run.types, [
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    const [start] = eventsOf(run, 'TOOL_CALL_START');
    assert.equal(start?.toolCallName, 'current_time');
    assert.equal(start?.toolCallId, 'toolu_t1');
    assert.equal(start?.parentMessageId, eventsOf(run, 'TEXT_MESSAGE_START')[0]?.messageId);
    assert.deepEqual(JSON.parse(eventsOf(run, 'TOOL_CALL_ARGS')[0]?.delta), { timeZone: 'Asia/Tokyo' });
    assert.match(String(eventsOf(run, 'TOOL_CALL_RESULT')[0]?.content), /\+09:00/);
    assert.equal(eventsOf(run, 'RUN_FINISHED')[0]?.result, 'It is late in Tokyo.');
  });

  it('frontend tool round trip: a call ends the stream with TOOL_CALL_END and RUN_FINISHED (pendingToolCallIds); the next input carrying the tool message streams the continuation of the same run', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_c1', name: 'confirm', input: { question: 'Book it?' } }] },
      { text: ['Booked.'] },
    );
    const front = agent();
    front.messages = [userMessage('Book the table.')];
    const tools = [
      {
        name: 'confirm',
        description: 'Ask the user to confirm.',
        parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
      },
    ];
    const first = await runOnce(front, { tools });
    assert.equal(first.error, undefined);
    assert.deepEqual(first.types, [
      'RUN_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'RUN_FINISHED',
    ]);
    const [finished] = eventsOf(first, 'RUN_FINISHED');
    assert.deepEqual(finished?.outcome, { type: 'success', pendingToolCallIds: ['toolu_c1'] });
    const serviceRunId = eventsOf(first, 'RUN_STARTED')[0]?.rawEvent.runId as string;
    fixture.trackRun(serviceRunId);
    const offered = bodyOf(fixture.fake.requests[0]).tools ?? [];
    assert.ok(
      offered.some((tool) => tool.name === 'confirm'),
      'the frontend tool is offered to the model',
    );
    const waiting = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${serviceRunId}`, {
      headers: fixture.headers,
    });
    assert.equal(waiting.body.status, 'waiting', 'the run waits for the frontend tool result');

    front.messages.push({ id: crypto.randomUUID(), role: 'tool', toolCallId: 'toolu_c1', content: 'yes' });
    const second = await runOnce(front, { tools });
    assert.equal(second.error, undefined);
    assert.deepEqual(second.types, [
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    assert.equal(eventsOf(second, 'RUN_STARTED')[0]?.rawEvent.runId, serviceRunId, 'the same run continues');
    assert.equal(eventsOf(second, 'RUN_FINISHED')[0]?.result, 'Booked.');
    assert.equal(fixture.fake.requests.length, 2);
    const toolResult = bodyOf(fixture.fake.requests[1])
      .messages.flatMap((message) => blocksOf(message))
      .find((block) => block.type === 'tool_result');
    assert.equal(toolResult?.tool_use_id, 'toolu_c1');
    assert.equal(toolResultText(toolResult), 'yes');
  });

  it('a new user message while a frontend tool call is unanswered is 409 session_busy before any stream; a tool message no run awaits is 404 unknown_tool_use', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_w1', name: 'confirm', input: {} }] },
      { text: ['Done.'] },
    );
    const front = agent();
    front.messages = [userMessage('Go.')];
    const tools = [{ name: 'confirm', description: 'Confirm.' }];
    const first = await runOnce(front, { tools });
    fixture.trackRun(eventsOf(first, 'RUN_STARTED')[0]?.rawEvent.runId);
    assert.equal(first.types.at(-1), 'RUN_FINISHED');
    const base = { threadId: front.threadId, runId: 'r2', tools, context: [] };
    const busy = await post('concierge', { ...base, messages: [...front.messages, userMessage('Again?')] });
    assert.equal(busy.status, 409, JSON.stringify(busy.body));
    assert.equal(busy.body.error, 'session_busy');
    const unknown = await post('concierge', {
      ...base,
      messages: [...front.messages, { id: 'tm', role: 'tool', toolCallId: 'toolu_nope', content: 'x' }],
    });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error, 'unknown_tool_use');
    const elsewhere = await post('concierge', {
      ...base,
      threadId: 'a-thread-never-seen',
      messages: [{ id: 'tm', role: 'tool', toolCallId: 'toolu_w1', content: 'x' }],
    });
    assert.equal(elsewhere.status, 404, 'another thread cannot answer the call');
    // The thread goes on once the call is answered.
    front.messages.push({ id: crypto.randomUUID(), role: 'tool', toolCallId: 'toolu_w1', content: 'ok' });
    const second = await runOnce(front, { tools });
    assert.equal(eventsOf(second, 'RUN_FINISHED')[0]?.result, 'Done.');
  });

  it('thread → session: the first input opens a session tagged with the thread; the second input of the thread sees the history, and the input messages already in the session are not sent again', async () => {
    fixture.fake.enqueue({ text: ['Paris.'] }, { text: ['About 2.1 million.'] });
    const front = agent();
    front.messages = [userMessage('Capital of France?')];
    await runOnce(front);
    const sessions = await sessionsOfThread(front.threadId);
    assert.equal(sessions.length, 1);
    // The front end sends its whole history again, with a system message of its own: only the new user message counts.
    front.messages = [
      { id: 'sys', role: 'system', content: 'IGNORED' },
      ...front.messages,
      userMessage('Its population?'),
    ];
    const second = await runOnce(front);
    assert.equal(eventsOf(second, 'RUN_FINISHED')[0]?.result, 'About 2.1 million.');
    assert.deepEqual(transcript(fixture.fake.requests[1]), [
      'user: Capital of France?',
      'assistant: Paris.',
      'user: Its population?',
    ]);
    assert.doesNotMatch(fixture.fake.requests[1]?.rawBody ?? '', /IGNORED/);
    assert.deepEqual(
      (await sessionsOfThread(front.threadId)).map((session) => session.sessionId),
      sessions.map((session) => session.sessionId),
    );
  });

  it('a run that fails ends the stream with RUN_ERROR carrying the error and its code', async () => {
    fixture.fake.enqueue({ type: 'http-error', status: 400, message: 'prompt is malformed' });
    const front = agent();
    front.messages = [userMessage('Hi')];
    const run = await runOnce(front);
    assert.deepEqual(run.types, ['RUN_STARTED', 'RUN_ERROR']);
    const [error] = eventsOf(run, 'RUN_ERROR');
    assert.match(error?.message, /malformed/);
    assert.equal(typeof error?.code, 'string');
    assert.equal(error?.metadata['agent-runs/runId'], eventsOf(run, 'RUN_STARTED')[0]?.rawEvent.runId);
  });

  it('bad input is 400 invalid_request before any stream: not a RunAgentInput, no new turn, an empty user message, a reserved tool name', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ runId: 'r', messages: [] }, /threadId/],
      [{ threadId: 't', runId: 'r', messages: [] }, /last message must be a user message/],
      [
        { threadId: 't', runId: 'r', messages: [{ id: 'a', role: 'assistant', content: 'x' }] },
        /last message/,
      ],
      [{ threadId: 't', runId: 'r', messages: [userMessage('  ')] }, /empty/],
      [{ threadId: '', runId: 'r', messages: [userMessage('hi')] }, /threadId/],
      [
        {
          threadId: 't',
          runId: 'r',
          messages: [userMessage('hi')],
          tools: [{ name: 'final_report', description: 'd' }],
        },
        /tools\.0\.name/,
      ],
    ];
    for (const [body, message] of cases) {
      const answer = await post('concierge', body);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.error, 'invalid_request');
      assert.match(answer.body.message, message);
    }
    assert.equal(fixture.fake.requests.length, 0, 'no run started');
  });

  it('an agent with client-resolved tools of its own is 409 conflict (no front end has their handlers)', async () => {
    const answer = await post('local-tools', { threadId: 't', runId: 'r', messages: [userMessage('hi')] });
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    assert.equal(answer.body.error, 'conflict');
    assert.match(answer.body.message, /frontend tools/);
  });
});
