import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, childEnv, REPO } from '../support/cli.ts';
import { WAIT_CAP_MS, withCap } from '../support/waits.ts';

const LISTENING = /^listening on (http:\/\/\S+)$/m;
const REQUESTS = 200;

/**
 * Issue 31, logs: `agent-runs serve` writes its log lines off the hot path (an asynchronous
 * destination) and still loses none on a clean stop: the lines of requests answered just before
 * SIGTERM are on stdout when the process has exited.
 */
describe('agent-runs serve: log lines on a clean stop', () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-runs-log-flush-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`every request answered before SIGTERM (${REQUESTS} at once, the stop sent as the last answer arrives) has its line on stdout after the exit`, async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      cwd: REPO,
      env: childEnv({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, PORT: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const baseUrl = await withCap(
        new Promise<string>((resolve, reject) => {
          child.stdout.on('data', () => {
            const match = LISTENING.exec(stdout);
            if (match?.[1]) resolve(match[1]);
          });
          void exited.then(() => reject(new Error(`exited before listening\n${stdout}\n${stderr}`)));
        }),
        WAIT_CAP_MS,
        () => `no listening line within ${WAIT_CAP_MS} ms\n${stdout}\n${stderr}`,
      );

      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, () => fetch(`${baseUrl}/healthz`).then((r) => r.status)),
      );
      child.kill('SIGTERM');
      assert.deepEqual(new Set(answers), new Set([200]));
      const code = await withCap(exited, WAIT_CAP_MS, () => `no exit within ${WAIT_CAP_MS} ms of SIGTERM`);
      assert.equal(code, 0, stderr);
      // The process is gone: what its stdout holds now is all it wrote.
      await new Promise<void>((resolve) =>
        child.stdout.readableEnded ? resolve() : child.stdout.once('end', resolve),
      );

      const lines = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const healthLines = lines.filter(
        (line) => line.msg === 'request completed' && line.route === '/healthz',
      );
      assert.equal(healthLines.length, REQUESTS, 'one line per request answered, none lost');
      for (const line of healthLines) {
        assert.equal(line.method, 'GET');
        assert.equal(line.status, 200);
        assert.equal(typeof line.durationMs, 'number');
      }
      assert.ok(
        lines.some((line) => line.msg === 'shutting down'),
        'the line written as the stop began is there too',
      );
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, WAIT_CAP_MS))]);
    }
  });
});
