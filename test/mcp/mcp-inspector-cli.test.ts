import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { WAIT_CAP_MS } from '../support/waits.ts';
import { mcpUrl } from './mcp-support.ts';

const run = promisify(execFile);

/** MCP Inspector's CLI mode (`@modelcontextprotocol/inspector-cli`, a devDependency). */
const INSPECTOR_CLI = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')),
  'build',
  'index.js',
);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the CLI prints arbitrary MCP JSON
type WireJson = Record<string, any>;

describe('extensions §9: MCP Inspector (CLI mode) lists and calls the agents', { timeout: 120_000 }, () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('openai-chat');
    const created = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Weather Desk',
      description: 'Forecasts.',
      systemPrompt: 'You forecast.',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(() => fixture.close());

  /** The CLI against the workspace's MCP server over Streamable HTTP, with the API key; its stdout as JSON. */
  const inspector = async (...args: string[]): Promise<WireJson> => {
    const { stdout } = await run(
      process.execPath,
      [
        INSPECTOR_CLI,
        mcpUrl(fixture.server.baseUrl, fixture.slug).href,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${fixture.key}`,
        ...args,
      ],
      // The CLI looks for its package.json relative to the working directory: run it from its build folder.
      { timeout: WAIT_CAP_MS, cwd: path.dirname(INSPECTOR_CLI) },
    );
    return JSON.parse(stdout) as WireJson;
  };

  it('tools/list shows the agent as a tool', async () => {
    const listed = await inspector('--method', 'tools/list');
    assert.deepEqual(
      listed.tools.map((tool: WireJson) => [tool.name, tool.description]),
      [['weather_desk', 'Forecasts.']],
    );
  });

  it('tools/call runs it and prints the reply with the run id and usage in _meta', async () => {
    fixture.fake.enqueue({ text: ['Rain ', 'tomorrow.'] });
    const called = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'weather_desk',
      '--tool-arg',
      'message=Forecast?',
    );
    assert.deepEqual(called.content, [{ type: 'text', text: 'Rain tomorrow.' }]);
    assert.match(called._meta['agent-runs/runId'], /^run_/);
    assert.equal(called._meta['agent-runs/usage'].turns, 1);
  });
});
