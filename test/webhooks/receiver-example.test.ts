import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { eventually } from '../support/waits.ts';

const RECEIVER = fileURLToPath(new URL('../../examples/webhooks/receiver.ts', import.meta.url));

describe('docs/webhooks.md: the receiver example verifies real deliveries', () => {
  let fixture: RunFixture;
  let receiver: ChildProcess | undefined;
  let output = '';
  before(async () => {
    fixture = await startRunFixture('openai-chat', { env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.1/32' } });
  });
  after(async () => {
    if (receiver && receiver.exitCode === null) {
      const exited = once(receiver, 'exit');
      receiver.kill('SIGTERM');
      await exited;
    }
    await fixture.close();
  });

  it('examples/webhooks/receiver.ts prints the verified run.succeeded of a run', async () => {
    const created = await fixture.server.request('POST', `${fixture.ws}/webhooks`, {
      headers: fixture.headers,
      body: { url: 'http://127.0.0.1:1/pending' },
    });
    assert.equal(created.status, 201);
    receiver = spawn(process.execPath, [RECEIVER], {
      env: { ...process.env, WEBHOOK_SECRET: created.body.secret, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    receiver.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    receiver.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(() => /receiving webhooks on (\S+)/.test(output), 'the receiver listens');
    const url = /receiving webhooks on (\S+)/.exec(output)?.[1];
    const patched = await fixture.server.request('PATCH', `${fixture.ws}/webhooks/${created.body.id}`, {
      headers: fixture.headers,
      body: { url: `${url}/hooks` },
    });
    assert.equal(patched.status, 200);
    fixture.fake.enqueue({ text: ['done'] });
    const { runId } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    await eventually(
      () => output.includes(`run.succeeded ${runId} succeeded`),
      'the receiver printed the event',
      {
        intervalMs: 50,
      },
    );
  });
});
