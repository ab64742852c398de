import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { readAll } from '../support/sse-client.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import { toolsByName } from './tool-support.ts';

const LONG_RUNNING_HINT = 'long-running operation';
const NESTED_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 2, pattern: '^[a-z ]+$' },
    options: {
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1, maximum: 5 }, mode: { enum: ['fast', 'exact'] } },
      required: ['limit'],
      additionalProperties: false,
    },
    tags: { type: 'array', items: { type: 'string', maxLength: 8 }, maxItems: 3, uniqueItems: true },
  },
  required: ['query'],
  additionalProperties: false,
};
const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} };

describe('tool refs: what the model sees', { timeout: 120_000 }, () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  /** Runs once with the refs (the model just answers) and returns the tools of the provider request by name. */
  async function toolsSeenFor(tools: unknown[]) {
    fixture.fake.reset();
    fixture.fake.enqueue({ text: ['ok'] });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', tools });
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(fixture.fake.requests.length, 1);
    return toolsByName(fixture.fake.requests[0]);
  }

  it('local longRunning: the fixed long-running hint is appended to the description (and absent otherwise)', async () => {
    const seen = await toolsSeenFor([
      { kind: 'local', name: 'deploy', description: 'Deploy the app.', longRunning: true },
      { kind: 'local', name: 'status', description: 'Deploy status.' },
      { kind: 'local', name: 'bare_long', longRunning: true },
    ]);
    const deploy = seen.get('deploy')?.description as string;
    assert.ok(deploy.startsWith('Deploy the app.'), deploy);
    assert.match(deploy, new RegExp(LONG_RUNNING_HINT));
    assert.match(deploy, /do not call it again/);
    assert.ok(
      deploy.indexOf(LONG_RUNNING_HINT) > deploy.indexOf('Deploy the app.'),
      'appended after the description',
    );
    assert.equal(seen.get('status')?.description, 'Deploy status.');
    assert.match(seen.get('bare_long')?.description as string, new RegExp(LONG_RUNNING_HINT));
  });

  it('local description is empty when omitted', async () => {
    const seen = await toolsSeenFor([{ kind: 'local', name: 'ping' }]);
    assert.equal(seen.get('ping')?.description ?? '', '');
  });

  it('local parameters: a non-object root is coerced to an empty object schema', async () => {
    const seen = await toolsSeenFor([
      { kind: 'local', name: 'string_root', parameters: { type: 'string' } },
      { kind: 'local', name: 'array_root', parameters: { type: 'array', items: { type: 'string' } } },
      { kind: 'local', name: 'list_value', parameters: [1, 2] },
      { kind: 'local', name: 'scalar_value', parameters: 'city' },
      { kind: 'local', name: 'omitted' },
    ]);
    for (const name of ['string_root', 'array_root', 'list_value', 'scalar_value', 'omitted']) {
      assert.deepEqual(seen.get(name)?.input_schema, EMPTY_OBJECT_SCHEMA, name);
    }
  });

  it('local parameters: an object schema is forwarded verbatim, nested constraints included', async () => {
    const seen = await toolsSeenFor([{ kind: 'local', name: 'search', parameters: NESTED_SCHEMA }]);
    assert.deepEqual(seen.get('search')?.input_schema, NESTED_SCHEMA);
  });

  it('local outputSchema: an object schema becomes a description hint carrying the schema', async () => {
    const outputSchema = { type: 'object', properties: { tempC: { type: 'number' } }, required: ['tempC'] };
    const seen = await toolsSeenFor([
      { kind: 'local', name: 'weather', description: 'Weather.', outputSchema },
    ]);
    const description = seen.get('weather')?.description as string;
    assert.ok(description.startsWith('Weather.'), description);
    assert.ok(description.includes(JSON.stringify(outputSchema)), description);
  });

  it('local outputSchema: `properties` without `type` is an object schema too, as for parameters', async () => {
    const outputSchema = { properties: { tempC: { type: 'number' } }, required: ['tempC'] };
    const seen = await toolsSeenFor([
      { kind: 'local', name: 'weather', description: 'Weather.', outputSchema },
    ]);
    const description = seen.get('weather')?.description as string;
    assert.ok(description.includes(JSON.stringify({ type: 'object', ...outputSchema })), description);
  });

  it('local outputSchema: a non-object root is dropped (no hint)', async () => {
    const seen = await toolsSeenFor([
      {
        kind: 'local',
        name: 'arr',
        description: 'Arr.',
        outputSchema: { type: 'array', items: { type: 'string' } },
      },
      { kind: 'local', name: 'str', description: 'Str.', outputSchema: { type: 'string' } },
      { kind: 'local', name: 'lst', description: 'Lst.', outputSchema: ['x'] },
    ]);
    assert.equal(seen.get('arr')?.description, 'Arr.');
    assert.equal(seen.get('str')?.description, 'Str.');
    assert.equal(seen.get('lst')?.description, 'Lst.');
  });

  it('a2a_local: description built from the card name, description and only the first 12 skills; one { message } argument', async () => {
    const skills = Array.from({ length: 14 }, (_, index) => ({
      id: `skill-${index + 1}`,
      name: `Skill${index + 1}x`,
      description: `Handles topic ${index + 1}x.`,
    }));
    const seen = await toolsSeenFor([
      {
        kind: 'a2a_local',
        name: 'travel_agent',
        agentCard: {
          name: 'Travel Planner',
          description: 'Plans trips end to end.',
          skills,
          url: 'https://127.0.0.1:9/a2a',
        },
      },
    ]);
    const tool = seen.get('travel_agent');
    const description = tool?.description as string;
    assert.match(description, /Travel Planner/);
    assert.match(description, /Plans trips end to end\./);
    for (let index = 1; index <= 12; index++) {
      assert.ok(description.includes(`Skill${index}x`), `skill ${index} listed`);
      assert.ok(description.includes(`Handles topic ${index}x.`), `skill ${index} description listed`);
    }
    assert.ok(
      !description.includes('Skill13x') && !description.includes('Handles topic 13x.'),
      '13th skill absent',
    );
    assert.ok(
      !description.includes('Skill14x') && !description.includes('Handles topic 14x.'),
      '14th skill absent',
    );
    assert.ok(!description.includes('127.0.0.1'), 'other card fields are not in the description');
    const schema = tool?.input_schema;
    assert.equal(schema.type, 'object');
    assert.deepEqual(Object.keys(schema.properties), ['message']);
    assert.equal(schema.properties.message.type, 'string');
    assert.deepEqual(schema.required, ['message']);
  });

  it('a2a_local: an explicit description overrides the synthesized one', async () => {
    const seen = await toolsSeenFor([
      {
        kind: 'a2a_local',
        name: 'peer',
        description: 'Ask the billing peer.',
        agentCard: {
          name: 'Billing Bot',
          description: 'Handles invoices.',
          skills: [{ id: 'refund', name: 'Refunds' }],
        },
      },
    ]);
    assert.equal(seen.get('peer')?.description, 'Ask the billing peer.');
    assert.deepEqual(Object.keys(seen.get('peer')?.input_schema.properties), ['message']);
  });

  it('mcp_local: tool names are used exactly as given, not prefixed with the server label', async () => {
    const seen = await toolsSeenFor([
      {
        kind: 'mcp_local',
        name: 'files',
        tools: [
          { name: 'read_file', description: 'Read a file.', inputSchema: NESTED_SCHEMA },
          { name: 'listDir', description: 'List a directory.' },
        ],
      },
    ]);
    assert.deepEqual([...seen.keys()].sort(), ['listDir', 'read_file']);
    assert.equal(seen.get('read_file')?.description, 'Read a file.');
    assert.ok(![...seen.keys()].some((name) => name.startsWith('files')), 'no server prefix');
  });

  it('mcp_local: inputSchema is forwarded verbatim with nested constraints; empty or missing means no arguments', async () => {
    const seen = await toolsSeenFor([
      {
        kind: 'mcp_local',
        name: 'srv',
        tools: [
          { name: 'search', inputSchema: NESTED_SCHEMA },
          { name: 'no_schema' },
          { name: 'empty_schema', inputSchema: {} },
        ],
      },
    ]);
    assert.deepEqual(seen.get('search')?.input_schema, NESTED_SCHEMA);
    assert.deepEqual(seen.get('no_schema')?.input_schema, EMPTY_OBJECT_SCHEMA);
    assert.deepEqual(seen.get('empty_schema')?.input_schema, EMPTY_OBJECT_SCHEMA);
  });

  it('mcp_local: the server label is not a tool name, so it may equal another tool name', async () => {
    const seen = await toolsSeenFor([
      { kind: 'mcp_local', name: 'lookup', tools: [{ name: 'lookup_user' }] },
      { kind: 'local', name: 'lookup' },
    ]);
    assert.deepEqual([...seen.keys()].sort(), ['lookup', 'lookup_user']);
  });
});

describe('tool refs: validation at creation (400 invalid_request)', { timeout: 120_000 }, () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  async function rejected(tools: unknown[]): Promise<string> {
    const response = await fixture.createRun({ systemPrompt: 's', prompt: 'p', tools });
    assert.equal(response.status, 400, JSON.stringify(response.body));
    assert.equal(response.body.error, 'invalid_request');
    return response.body.message as string;
  }

  it('a tool name must match ^[a-zA-Z0-9_]{1,64}$ (local, a2a_local, mcp_local and mcp_local tool names)', async () => {
    for (const name of ['get-weather', 'get.weather', 'with space', '', 'x'.repeat(65)]) {
      assert.match(await rejected([{ kind: 'local', name }]), /name/, name);
    }
    await rejected([{ kind: 'a2a_local', name: 'peer-1', agentCard: { name: 'Peer' } }]);
    await rejected([{ kind: 'mcp_local', name: 'srv:1', tools: [{ name: 'ok' }] }]);
    assert.match(
      await rejected([{ kind: 'mcp_local', name: 'srv', tools: [{ name: 'bad.name' }] }]),
      /tools\.0\.tools\.0\.name/,
    );
    const longest = await fixture.createRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'local', name: 'A_9'.repeat(21) + 'z' }],
    });
    assert.equal(longest.status, 202, 'a 64-character name is valid');
    await readAll(fixture.streamUrl(longest.body.runId), fixture.headers);
  });

  it('mcp_local tools must have 1 to 64 entries: 0 and 65 are rejected, 64 is accepted', async () => {
    const list = (count: number) => Array.from({ length: count }, (_, index) => ({ name: `tool_${index}` }));
    assert.match(await rejected([{ kind: 'mcp_local', name: 'srv', tools: [] }]), /tools/);
    assert.match(await rejected([{ kind: 'mcp_local', name: 'srv', tools: list(65) }]), /tools/);
    await rejected([{ kind: 'mcp_local', name: 'srv' }]);
    const ok = await fixture.createRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'mcp_local', name: 'srv', tools: list(64) }],
    });
    assert.equal(ok.status, 202);
    await readAll(fixture.streamUrl(ok.body.runId), fixture.headers);
  });

  it('two refs exposing the same tool name collide', async () => {
    const local = (name: string) => ({ kind: 'local', name });
    const mcp = (server: string, tool: string) => ({
      kind: 'mcp_local',
      name: server,
      tools: [{ name: tool }],
    });
    const a2a = (name: string) => ({ kind: 'a2a_local', name, agentCard: { name: 'P' } });
    assert.match(await rejected([local('dup'), local('dup')]), /dup/);
    assert.match(await rejected([local('search'), mcp('srv', 'search')]), /search/);
    assert.match(await rejected([mcp('one', 'fetch'), mcp('two', 'fetch')]), /fetch/);
    assert.match(await rejected([a2a('peer'), local('peer')]), /peer/);
  });

  it('svc_plugin: an unknown plugin name is 400 invalid_request at run creation, naming it', async () => {
    const message = await rejected([{ kind: 'svc_plugin', name: 'no_such_plugin' }]);
    assert.match(message, /no_such_plugin/);
    assert.match(message, /current_time/, 'the message lists the available plugin tools');
  });

  it('svc: an id that names no workspace tool of the workspace is 400 invalid_request at run creation', async () => {
    assert.match(await rejected([{ kind: 'svc', id: 'tool_123' }]), /tool_123/);
  });

  it('a2a and mcp headers: a value over 8 KB is 400 invalid_request', async () => {
    const big = { authorization: 'x'.repeat(8 * 1024 + 1) };
    const mcp = { kind: 'mcp', name: 'remote', url: 'https://127.0.0.1:9/mcp', headers: big };
    const a2a = { kind: 'a2a', name: 'peer', agentCardUrl: 'https://127.0.0.1:9/card.json', headers: big };
    assert.match(await rejected([mcp]), /8 KB/);
    assert.match(await rejected([a2a]), /8 KB/);
  });

  it('a2a_local needs an agentCard object; an unknown kind is rejected', async () => {
    assert.match(await rejected([{ kind: 'a2a_local', name: 'peer' }]), /agentCard/);
    assert.match(await rejected([{ kind: 'a2a_local', name: 'peer', agentCard: ['x'] }]), /agentCard/);
    assert.match(await rejected([{ kind: 'remote', name: 'x' }]), /kind/);
  });
});
