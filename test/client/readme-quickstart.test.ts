import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { withCap, WAIT_CAP_MS } from '../support/waits.ts';
import { startClientFixture, type ClientFixture } from './client-fixture.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = new URL('../../packages/client/README.md', import.meta.url);

/** The first ```ts block after the quick-start marker of the client's README. */
async function quickStartSnippet(): Promise<string> {
  const readme = await readFile(README, 'utf8');
  const marker = readme.indexOf('<!-- quick-start:');
  assert.ok(marker >= 0, 'the README has no quick-start marker');
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(marker));
  assert.ok(block?.[1], 'no ts block after the quick-start marker');
  return block[1];
}

/** Runs TypeScript source as a module from the repository root (so `@agent-runs/client` resolves). */
function runModule(source: string, env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ['--conditions=@agent-runs/source', '--input-type=module-typescript'],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(source);
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, exited };
}

describe('the README quick start', () => {
  let fixture: ClientFixture;
  before(async () => {
    fixture = await startClientFixture('acme');
  });
  after(() => fixture.close());

  it('runs as written against the service: it streams the reply and reports the result', async () => {
    const { child, exited } = runModule(await quickStartSnippet(), {
      AGENT_RUNS_URL: fixture.server.baseUrl,
      AGENT_RUNS_WORKSPACE: fixture.slug,
      AGENT_RUNS_API_KEY: fixture.key,
    });
    const result = await withCap(exited, WAIT_CAP_MS, () => {
      child.kill();
      return 'the quick start did not finish';
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^You said: Say hello\.\n1 turn\(s\), model mock\/echo\n$/);
  });
});
