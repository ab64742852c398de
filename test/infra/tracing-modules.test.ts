import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { childEnv, REPO } from '../support/cli.ts';

const PROBE = join(REPO, 'test/support/otel-module-probe.ts');
const dir = mkdtempSync(join(tmpdir(), 'agent-runs-otel-probe-'));

/** The `@opentelemetry/*` packages a service process loads, started and stopped on `env`. */
async function otelModules(env: Record<string, string>): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@agent-runs/source', PROBE], {
    cwd: REPO,
    env: childEnv({ DATABASE_URL: `sqlite:${join(dir, `${Object.keys(env).length}.db`)}`, ...env }),
    encoding: 'utf8',
  });
  const { health, modules } = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
    health: number;
    modules: string[];
  };
  assert.equal(health, 200);
  return modules;
}

/** The SDK, its exporters and instrumentations (`@opentelemetry/api` alone is the AI SDK's, and inert). */
const isSdkModule = (name: string) => name !== '@opentelemetry/api';

describe('tracing costs nothing when it is off (extensions §3)', { timeout: 60_000 }, () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('without an OTLP endpoint no OpenTelemetry SDK, exporter or instrumentation module is loaded', async () => {
    const modules = await otelModules({});
    assert.deepEqual(modules.filter(isSdkModule), []);
  });

  it('with OTEL_EXPORTER_OTLP_ENDPOINT the SDK is loaded (the probe sees it)', async () => {
    const modules = await otelModules({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    for (const name of [
      '@opentelemetry/sdk-node',
      '@opentelemetry/sdk-trace',
      '@opentelemetry/instrumentation-undici',
    ]) {
      assert.ok(modules.includes(name), `${name} in ${modules.join(', ')}`);
    }
  });
});
