import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { PluginRecordStore, ServerToolCallContext, ServerToolOutcome } from '../../src/engine/ports.ts';
import { PluginRecordRepository } from '../../src/storage/repositories/plugin-record-repository.ts';
import { WorkspaceRepository } from '../../src/storage/repositories/workspace-repository.ts';
import { currentTimePlugin } from '../../src/tools/plugins/builtin/current-time.ts';
import {
  createPluginRegistry,
  loadPluginModules,
  PluginRegistry,
  type PluginDeps,
} from '../../src/tools/plugins/plugin-registry.ts';
import type { ToolPlugin, ToolPluginModule } from '../../src/tools/plugins/tool-plugin.ts';
import { openTestStorage } from '../support/engines.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** Plugins that never touch records or the network are called with these. */
const NO_RECORDS: PluginRecordStore = {
  put: () => Promise.reject(new Error('no records here')),
  get: () => Promise.reject(new Error('no records here')),
  list: () => Promise.reject(new Error('no records here')),
  delete: () => Promise.reject(new Error('no records here')),
};
const PLAIN_DEPS: PluginDeps = { fetch: globalThis.fetch, records: NO_RECORDS };

function callContext(overrides: Partial<ServerToolCallContext> = {}): ServerToolCallContext {
  return {
    runId: 'run_test',
    workspaceId: 'ws_test',
    agentId: null,
    signal: new AbortController().signal,
    ...overrides,
  };
}

function call(
  registry: PluginRegistry,
  name: string,
  args: Record<string, unknown>,
  context: ServerToolCallContext = callContext(),
  deps: PluginDeps = PLAIN_DEPS,
): Promise<ServerToolOutcome> {
  return registry.serverTool(name, deps).handler(args, context);
}

const moduleOf = (name: string, ...plugins: ToolPlugin[]): ToolPluginModule => ({ name, plugins });
const pluginNamed = (name: string, execute: ToolPlugin['execute'] = async () => 'ok'): ToolPlugin => ({
  name,
  description: `the ${name} plugin`,
  parameters: { type: 'object', properties: {} },
  execute,
});

describe('plugin registry', () => {
  it('has the first-party plugins, first', () => {
    const registry = createPluginRegistry([moduleOf('extra', pluginNamed('extra_tool'))]);
    assert.deepEqual(registry.names(), [
      'fetch_web_page',
      'current_time',
      'remember',
      'recall',
      'extra_tool',
    ]);
    assert.equal(registry.has('recall'), true);
    assert.equal(registry.has('missing'), false);
  });

  it('a plugin becomes a svc_plugin server tool with its schema and readOnly, never retained', () => {
    const { tool } = createPluginRegistry().serverTool('current_time', PLAIN_DEPS);
    assert.equal(tool.kind, 'svc_plugin');
    assert.equal(tool.name, 'current_time');
    assert.equal(tool.readOnly, true);
    assert.equal(tool.retain, false);
    assert.deepEqual(tool.callExtras, {});
    assert.equal(tool.inputSchema.type, 'object');
    assert.ok('timeZone' in (tool.inputSchema.properties as object));
    const remember = createPluginRegistry().serverTool('remember', PLAIN_DEPS).tool;
    assert.equal(remember.readOnly, false);
  });

  it('a duplicate plugin name is refused at registration', () => {
    assert.throws(
      () => createPluginRegistry([moduleOf('mine', pluginNamed('current_time'))]),
      /'current_time' is already registered by 'current_time'/,
    );
    assert.throws(
      () => createPluginRegistry([moduleOf('twice', pluginNamed('same'), pluginNamed('same'))]),
      /'same' is already registered by 'twice'/,
    );
  });

  it('a duplicate module name is refused: a module name is its records namespace', () => {
    assert.throws(
      () => createPluginRegistry([moduleOf('memory', pluginNamed('steal'))]),
      /plugin module 'memory' is registered twice/,
    );
  });

  it('an invalid plugin or module name is refused at registration', () => {
    for (const bad of ['', 'has space', 'dash-ed', 'x'.repeat(65)]) {
      assert.throws(
        () => createPluginRegistry([moduleOf('mod', pluginNamed(bad))]),
        /is invalid: it must match/,
      );
    }
    assert.throws(() => createPluginRegistry([moduleOf('bad name', pluginNamed('ok'))]), /is invalid/);
  });

  it('a refused module registers none of its plugins', () => {
    const registry = new PluginRegistry();
    assert.throws(() => registry.register(moduleOf('m', pluginNamed('good'), pluginNamed('bad name'))));
    assert.equal(registry.has('good'), false);
  });
});

describe('plugin modules', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-runs-plugins-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('loadPluginModules imports an operator module by a path relative to the base directory', async () => {
    const modules = await loadPluginModules(['./examples/plugins/shout.ts'], REPO_ROOT);
    assert.equal(modules.length, 1);
    assert.equal(modules[0]?.name, 'shout');
    const registry = createPluginRegistry(modules);
    assert.deepEqual(await call(registry, 'shout', { text: 'hello there' }), {
      ok: true,
      text: 'HELLO THERE',
    });
  });

  it('a module with a bad default export is refused with an error naming the module and the field', async () => {
    writeFileSync(
      join(dir, 'bad.mjs'),
      "export default { name: 'bad', plugins: [{ name: 'x', description: 'd', parameters: { type: 'object' } }] };",
    );
    await assert.rejects(
      loadPluginModules(['./bad.mjs'], dir),
      /plugin module '\.\/bad\.mjs': plugins\[0\]\.execute must be a function/,
    );
    writeFileSync(join(dir, 'none.mjs'), 'export const plugins = [];');
    await assert.rejects(
      loadPluginModules(['./none.mjs'], dir),
      /plugin module '\.\/none\.mjs': its default export must be an object/,
    );
  });

  it('a module that cannot be imported is named in the error', async () => {
    await assert.rejects(
      loadPluginModules(['./does-not-exist.mjs'], dir),
      /plugin module '\.\/does-not-exist\.mjs' could not be imported/,
    );
    await assert.rejects(
      loadPluginModules(['agent-runs-no-such-plugin-package'], dir),
      /plugin module 'agent-runs-no-such-plugin-package' could not be imported/,
    );
  });
});

describe('plugin calls', () => {
  it('a thrown plugin error becomes a tool error with its message', async () => {
    const registry = createPluginRegistry([
      moduleOf(
        'failing',
        pluginNamed('explode', async () => {
          throw new Error('the widget is jammed');
        }),
      ),
    ]);
    assert.deepEqual(await call(registry, 'explode', {}), { ok: false, text: 'the widget is jammed' });
  });

  it('a throw after the run was cancelled propagates instead of answering the call', async () => {
    const controller = new AbortController();
    const registry = createPluginRegistry([
      moduleOf(
        'slow',
        pluginNamed('wait', async (_args, context) => {
          controller.abort(new Error('cancelled'));
          context.signal.throwIfAborted();
          return 'never';
        }),
      ),
    ]);
    await assert.rejects(call(registry, 'wait', {}, callContext({ signal: controller.signal })), /cancelled/);
  });

  it('a returned outcome is passed through; anything else is a tool error', async () => {
    const registry = createPluginRegistry([
      moduleOf(
        'outcomes',
        pluginNamed('refuse', async () => ({ ok: false, text: 'refused' })),
        pluginNamed('garbage', async () => 42 as unknown as string),
      ),
    ]);
    assert.deepEqual(await call(registry, 'refuse', {}), { ok: false, text: 'refused' });
    const garbage = await call(registry, 'garbage', {});
    assert.equal(garbage.ok, false);
    assert.match(garbage.text, /returned neither a string nor/);
  });
});

describe('current_time', () => {
  const fixed = new Date('2024-03-01T23:59:59.500Z');

  it('gives the time in the zone as ISO 8601 with its offset, the weekday and the zone', async () => {
    const registry = new PluginRegistry();
    registry.register(
      moduleOf(
        'clock',
        currentTimePlugin(() => fixed),
      ),
    );
    const tokyo = await call(registry, 'current_time', { timeZone: 'Asia/Tokyo' });
    assert.deepEqual(tokyo, { ok: true, text: '2024-03-02T08:59:59+09:00 (Saturday, Asia/Tokyo)' });
    const utc = await call(registry, 'current_time', {});
    assert.deepEqual(utc, { ok: true, text: '2024-03-01T23:59:59+00:00 (Friday, UTC)' });
  });

  it('the real clock in Asia/Tokyo has +09:00', async () => {
    const outcome = await call(createPluginRegistry(), 'current_time', { timeZone: 'Asia/Tokyo' });
    assert.equal(outcome.ok, true);
    assert.match(outcome.text, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+09:00 \(\w+day, Asia\/Tokyo\)$/);
  });

  it('an unknown time zone is a tool error stating the rule', async () => {
    const outcome = await call(createPluginRegistry(), 'current_time', { timeZone: 'Mars/Olympus_Mons' });
    assert.equal(outcome.ok, false);
    assert.match(outcome.text, /unknown time zone 'Mars\/Olympus_Mons'/);
    assert.match(outcome.text, /IANA time zone name/);
  });
});

const ARTICLE_HTML = `<!doctype html>
<html><head><title>Page title | Example News</title><style>body { color: red }</style>
<script>window.trackingSecret = 'tracker-code';</script></head>
<body>
  <nav class="menu"><a href="/">Home</a> <a href="/sections">Sections navigation link</a></nav>
  <article>
    <h1>Otters hold hands while sleeping</h1>
    <p>${'Sea otters often float in groups called rafts, and they hold paws so they do not drift apart. '.repeat(6)}</p>
    <p>A second paragraph   explains
       how kelp forests help too. ${'Kelp gives them something to wrap around during the night. '.repeat(5)}</p>
  </article>
  <script>document.write('inline-script-output')</script>
</body></html>`;

describe('fetch_web_page', () => {
  let server: Server;
  let base: string;
  const registry = createPluginRegistry();
  const fetchPage = (args: Record<string, unknown>) => call(registry, 'fetch_web_page', args);

  before(async () => {
    server = createServer((request, response) => {
      const send = (status: number, type: string, body: string) => {
        response.writeHead(status, { 'content-type': type });
        response.end(body);
      };
      switch (request.url) {
        case '/article':
          return send(200, 'text/html; charset=utf-8', ARTICLE_HTML);
        case '/plain':
          return send(200, 'text/plain', 'just\n  plain text');
        case '/data':
          return send(200, 'application/json', '{"a":1,"b":[true]}');
        case '/long':
          return send(200, 'text/plain', 'x'.repeat(500));
        case '/image':
          return send(200, 'image/png', 'not really');
        case '/fragment':
          return send(
            200,
            'text/html',
            '<title>Note</title><p>First line.</p><ul><li>one</li><li>two</li></ul>',
          );
        case '/huge':
          return send(200, 'text/plain', 'y'.repeat(6 * 1024 * 1024));
        case '/hang':
          return undefined;
        case '/moved':
          response.writeHead(302, { location: '/plain' });
          return response.end();
        default:
          return send(404, 'text/plain', 'nothing here');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('an HTML page becomes its title and readable text, without navigation or scripts', async () => {
    const outcome = await fetchPage({ url: `${base}/article` });
    assert.equal(outcome.ok, true, outcome.text);
    assert.match(outcome.text, /^Page title \| Example News\n\n/);
    assert.match(outcome.text, /Sea otters often float in groups/);
    assert.match(outcome.text, /A second paragraph explains how kelp forests help too\./);
    assert.match(outcome.text, /drift apart\.\n\nA second paragraph/, 'paragraphs stay apart');
    for (const absent of ['tracker-code', 'inline-script-output', 'Sections navigation link', 'color: red']) {
      assert.ok(!outcome.text.includes(absent), `'${absent}' should not be in the text`);
    }
  });

  it('text is returned as is and JSON pretty-printed', async () => {
    assert.deepEqual(await fetchPage({ url: `${base}/plain` }), { ok: true, text: 'just\n  plain text' });
    assert.deepEqual(await fetchPage({ url: `${base}/data` }), {
      ok: true,
      text: '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}',
    });
  });

  it('redirects are followed', async () => {
    assert.deepEqual(await fetchPage({ url: `${base}/moved` }), { ok: true, text: 'just\n  plain text' });
  });

  it('a non-2xx answer is a tool error with the status', async () => {
    const outcome = await fetchPage({ url: `${base}/missing` });
    assert.equal(outcome.ok, false);
    assert.match(outcome.text, /answered HTTP 404/);
  });

  it('an unsupported content type is a tool error naming the type', async () => {
    const outcome = await fetchPage({ url: `${base}/image` });
    assert.equal(outcome.ok, false);
    assert.match(outcome.text, /'image\/png'/);
  });

  it('a text longer than maxChars is cut, with a note', async () => {
    const outcome = await fetchPage({ url: `${base}/long`, maxChars: 100 });
    assert.equal(outcome.ok, true);
    assert.equal(outcome.text, `${'x'.repeat(100)}\n\n[truncated: the first 100 of 500 characters]`);
  });

  it('an HTML page without a body tag still gives its text, blocks on their own lines', async () => {
    assert.deepEqual(await fetchPage({ url: `${base}/fragment` }), {
      ok: true,
      text: 'Note\n\nFirst line.\n\none\ntwo',
    });
  });

  it('at most 5 MB of a body is read, with a note', async () => {
    const outcome = await fetchPage({ url: `${base}/huge`, maxChars: 10 });
    assert.equal(
      outcome.text,
      'yyyyyyyyyy\n\n[truncated: the first 10 of 5242880 characters]\n\n[the page is larger than 5 MB: only its first 5 MB were read]',
    );
  });

  it('cancelling the run abandons the fetch instead of answering it', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('run cancelled')), 50);
    await assert.rejects(
      call(registry, 'fetch_web_page', { url: `${base}/hang` }, callContext({ signal: controller.signal })),
      /run cancelled/,
    );
  });

  it('a URL that is not http or https is a tool error', async () => {
    const outcome = await fetchPage({ url: 'file:///etc/passwd' });
    assert.equal(outcome.ok, false);
    assert.match(outcome.text, /not an http or https URL/);
  });

  it('it fetches only through the fetch it is given, which holds the SSRF guard', async () => {
    const refusing: typeof globalThis.fetch = () =>
      Promise.reject(new TypeError('fetch failed', { cause: new Error('address 127.0.0.1 is private') }));
    const outcome = await call(registry, 'fetch_web_page', { url: `${base}/plain` }, callContext(), {
      ...PLAIN_DEPS,
      fetch: refusing,
    });
    assert.equal(outcome.ok, false);
    assert.match(outcome.text, /could not fetch .*: fetch failed: address 127\.0\.0\.1 is private/);
  });
});

describe('memory: remember and recall', () => {
  let storage: Awaited<ReturnType<typeof openTestStorage>>;
  let deps: PluginDeps;
  let workspaceId: string;
  let otherWorkspaceId: string;
  const registry = createPluginRegistry();

  before(async () => {
    storage = await openTestStorage('sqlite');
    deps = { fetch: globalThis.fetch, records: new PluginRecordRepository(storage.db) };
    const workspaces = new WorkspaceRepository(storage.db);
    const newWorkspace = async (slug: string) =>
      (
        await workspaces.create({
          slug,
          name: slug,
          features: { apiKeys: true, oauthApps: true },
          rateLimits: {},
          maxConcurrentRuns: 10,
        })
      ).id;
    workspaceId = await newWorkspace('memory-one');
    otherWorkspaceId = await newWorkspace('memory-two');
  });
  after(() => storage.drop());

  const asAgent = (agentId: string | null, ws = workspaceId) => callContext({ workspaceId: ws, agentId });
  const remember = (args: Record<string, unknown>, context = asAgent('agt_a')) =>
    call(registry, 'remember', args, context, deps);
  const recall = (args: Record<string, unknown>, context = asAgent('agt_a')) =>
    call(registry, 'recall', args, context, deps);

  it('remembered memories are recalled newest first, with keys and dates', async () => {
    assert.deepEqual(await recall({}), { ok: true, text: 'no memories yet' });
    const first = await remember({ content: 'The user prefers metric units.' });
    assert.equal(first.ok, true);
    assert.match(first.text, /^Remembered as 'mem_[0-9a-z]{26}'\.$/);
    await remember({ content: 'Project codename is Heron.', key: 'codename' });
    const recalled = await recall({});
    assert.equal(recalled.ok, true);
    const lines = recalled.text.split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0] ?? '', /^1\. \[codename, \d{4}-\d\d-\d\dT[\d:.]+Z\] Project codename is Heron\.$/);
    assert.match(lines[1] ?? '', /^2\. \[mem_[0-9a-z]{26}, .+\] The user prefers metric units\.$/);
  });

  it('remembering an existing key replaces that memory', async () => {
    const replaced = await remember({ content: 'Project codename is Kestrel.', key: 'codename' });
    assert.deepEqual(replaced, { ok: true, text: "Replaced the memory 'codename'." });
    const recalled = await recall({});
    assert.match(recalled.text, /Kestrel/);
    assert.doesNotMatch(recalled.text, /Heron/);
  });

  it('recall filters by a case-insensitive substring and honours limit', async () => {
    const matching = await recall({ query: 'METRIC' });
    assert.match(matching.text, /^1\. \[mem_.+\] The user prefers metric units\.$/);
    assert.deepEqual(await recall({ query: 'nothing like this' }), {
      ok: true,
      text: "no memories contain 'nothing like this'",
    });
    assert.equal((await recall({ limit: 1 })).text.split('\n').length, 1);
  });

  it('another agent or another workspace sees none of them', async () => {
    assert.deepEqual(await recall({}, asAgent('agt_b')), { ok: true, text: 'no memories yet' });
    assert.deepEqual(await recall({}, asAgent('agt_a', otherWorkspaceId)), {
      ok: true,
      text: 'no memories yet',
    });
  });

  it('a run without a persisted agent gets a tool error from both', async () => {
    for (const outcome of [
      await remember({ content: 'x' }, asAgent(null)),
      await recall({}, asAgent(null)),
    ]) {
      assert.equal(outcome.ok, false);
      assert.match(outcome.text, /memory needs a run of a persisted agent \(created with agentId\)/);
    }
  });
});
