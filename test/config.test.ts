import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { availableParallelism } from 'node:os';
import { assertRoleRequirements, ConfigError, loadConfig } from '../src/config.ts';

describe('configuration from the environment', () => {
  it('defaults match the operator contract', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.deepEqual(config.storage, {
      engine: 'sqlite',
      path: './data/agent-runs.db',
      url: 'sqlite:./data/agent-runs.db',
    });
    assert.equal(config.role, 'all');
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.adminToken, undefined);
  });

  it('reads every variable of the contract', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
      REDIS_URL: 'redis://127.0.0.1:6379',
      AGENT_RUNS_ROLE: 'worker',
      AGENT_RUNS_ADMIN_TOKEN: 'a'.repeat(20),
      AGENT_RUNS_PUBLIC_URL: 'https://runs.example.test/',
      AGENT_RUNS_SECRET: 's'.repeat(32),
      OPENAI_API_KEY: 'sk-1',
      ANTHROPIC_API_KEY: 'sk-2',
      GOOGLE_GENERATIVE_AI_API_KEY: 'g-3',
    });
    assert.equal(config.port, 0);
    assert.equal(config.storage.engine, 'postgres');
    assert.equal(config.publicUrl, 'https://runs.example.test');
    assert.deepEqual(config.providerKeys, { openai: 'sk-1', anthropic: 'sk-2', google: 'g-3' });
    assertRoleRequirements(config);
  });

  it('names every bad value in one clear error', () => {
    assert.throws(
      () =>
        loadConfig({
          PORT: '70000',
          DATABASE_URL: 'mysql://x',
          AGENT_RUNS_ROLE: 'both',
          REDIS_URL: 'http://x',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        for (const name of ['PORT', 'DATABASE_URL', 'AGENT_RUNS_ROLE', 'REDIS_URL']) {
          assert.match(error.message, new RegExp(`${name}:`));
        }
        return true;
      },
    );
  });

  it('AGENT_RUNS_MODEL_THREADS: default one per core beyond the first, up to 4; 0 keeps model calls on the event loop; 0-64 only', () => {
    assert.equal(loadConfig({}).modelThreads, Math.min(4, availableParallelism() - 1));
    assert.equal(loadConfig({ AGENT_RUNS_MODEL_THREADS: '0' }).modelThreads, 0);
    assert.equal(loadConfig({ AGENT_RUNS_MODEL_THREADS: '8' }).modelThreads, 8);
    for (const bad of ['65', '-1', 'two', '1.5']) {
      assert.throws(
        () => loadConfig({ AGENT_RUNS_MODEL_THREADS: bad }),
        /AGENT_RUNS_MODEL_THREADS: must be a whole number from 0 to 64/,
      );
    }
  });

  it('the admin token and the secret take any value the operator sets (the contract sets no length)', () => {
    const config = loadConfig({ AGENT_RUNS_ADMIN_TOKEN: 'admin', AGENT_RUNS_SECRET: 'short' });
    assert.equal(config.adminToken, 'admin');
    assert.equal(config.secret, 'short');
  });

  it('AGENT_RUNS_TRUST_PROXY: false by default; true, a hop count, or a list of proxy addresses and ranges; anything else is refused', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ AGENT_RUNS_TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ AGENT_RUNS_TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ AGENT_RUNS_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy, [
      '10.0.0.0/8',
      '127.0.0.1',
    ]);
    for (const bad of ['yes', 'proxy.example', '10.0.0.0/99']) {
      assert.throws(() => loadConfig({ AGENT_RUNS_TRUST_PROXY: bad }), /AGENT_RUNS_TRUST_PROXY/, bad);
    }
  });

  it('AGENT_RUNS_FETCH_ALLOW: a comma-separated list of CIDR ranges (none by default); anything else is refused at start', () => {
    assert.deepEqual(loadConfig({}).fetchAllow, []);
    assert.deepEqual(loadConfig({ AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8, ::1/128,10.0.0.0/8' }).fetchAllow, [
      '127.0.0.0/8',
      '::1/128',
      '10.0.0.0/8',
    ]);
    for (const bad of ['127.0.0.1', 'localhost', '10.0.0.0/33']) {
      assert.throws(() => loadConfig({ AGENT_RUNS_FETCH_ALLOW: bad }), /AGENT_RUNS_FETCH_ALLOW: .*CIDR/, bad);
    }
  });

  it('AGENT_RUNS_WEBHOOK_RETRY_SCHEDULE: comma-separated milliseconds (extensions §7 by default); anything else is refused at start', () => {
    assert.deepEqual(
      loadConfig({}).webhookRetryScheduleMs,
      [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000],
    );
    assert.deepEqual(
      loadConfig({ AGENT_RUNS_WEBHOOK_RETRY_SCHEDULE: '50, 100,0' }).webhookRetryScheduleMs,
      [50, 100, 0],
    );
    for (const bad of ['5s', '-1', '1.5', '604800001']) {
      assert.throws(
        () => loadConfig({ AGENT_RUNS_WEBHOOK_RETRY_SCHEDULE: bad }),
        /AGENT_RUNS_WEBHOOK_RETRY_SCHEDULE: .*milliseconds/,
        bad,
      );
    }
  });

  it('AGENT_RUNS_SCHEDULE_POLL_MS: 1000 by default, 100 to 60000 milliseconds; anything else is refused at start', () => {
    assert.equal(loadConfig({}).schedulePollMs, 1000);
    assert.equal(loadConfig({ AGENT_RUNS_SCHEDULE_POLL_MS: '250' }).schedulePollMs, 250);
    for (const bad of ['99', '60001', '1s', '-5', '1.5']) {
      assert.throws(
        () => loadConfig({ AGENT_RUNS_SCHEDULE_POLL_MS: bad }),
        /AGENT_RUNS_SCHEDULE_POLL_MS: .*milliseconds/,
        bad,
      );
    }
  });

  it('AGENT_RUNS_PLUGINS: operator plugin modules, comma-separated', () => {
    assert.deepEqual(loadConfig({}).plugins, []);
    assert.deepEqual(loadConfig({ AGENT_RUNS_PLUGINS: './a.ts, @acme/tools' }).plugins, [
      './a.ts',
      '@acme/tools',
    ]);
  });

  it('an empty variable counts as unset', () => {
    assert.equal(loadConfig({ PORT: '', REDIS_URL: '' }).port, 8080);
  });

  it('api and worker roles need Redis and PostgreSQL', () => {
    assert.throws(() => assertRoleRequirements(loadConfig({ AGENT_RUNS_ROLE: 'api' })), /REDIS_URL/);
    assert.throws(
      () =>
        assertRoleRequirements(
          loadConfig({ AGENT_RUNS_ROLE: 'worker', REDIS_URL: 'redis://127.0.0.1:6379' }),
        ),
      /postgres/,
    );
  });
});
