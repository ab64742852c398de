import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createAgent } from '../a2a/a2a-support.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';
import { WAIT_CAP_MS, withCap } from '../support/waits.ts';

const FRONT_END = fileURLToPath(new URL('../../examples/ag-ui/front-end.ts', import.meta.url));

describe(
  'docs/ag-ui.md: the front-end example runs an agent and answers its frontend tool',
  { timeout: 120_000 },
  () => {
    let server: TestServer;
    let key: string;
    before(async () => {
      // Dev mode: the offline mock model calls an offered tool when asked to (`call <tool> {json}`).
      server = await startTestServer({ dev: true });
      key = (await createWorkspaceWithKey(server, 'acme')).key;
      await createAgent(server, 'acme', { name: 'Helper', systemPrompt: 's' });
    });
    after(() => server.close());

    it('examples/ag-ui/front-end.ts prints the tool round trip and the reply built on its answer', async () => {
      const child = spawn(process.execPath, [FRONT_END, 'acme', 'helper', 'call get_location {}'], {
        env: { ...process.env, AGUI_BASE_URL: server.baseUrl, AGUI_API_KEY: key },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = await withCap(once(child, 'exit'), WAIT_CAP_MS, () => {
        child.kill('SIGKILL');
        return `the example did not exit: ${output}`;
      });
      assert.equal(code, 0, output);
      assert.match(output, /\[get_location answered\]/);
      assert.match(output, /Tool get_location returned: Lyon, France/);
      // The thread's session holds the whole exchange: one run, answered once.
      const sessions = await server.request('GET', '/api/v1/workspaces/acme/agent-sessions', {
        headers: bearer(key),
      });
      assert.equal(sessions.body.total, 1);
    });
  },
);
