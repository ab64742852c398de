import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, afterEach, before, describe, it } from 'node:test';
import { BIN, childEnv, MAIN, REPO, runCliInProcess } from '../support/cli.ts';
import { eventually, WAIT_CAP_MS, withCap } from '../support/waits.ts';

const LISTENING = /^listening on (http:\/\/\S+)$/m;
const CURL = /curl -s (\S+\/models) -H 'Authorization: (Bearer svc_[A-Za-z0-9]+)'/;
const RUN_CURL =
  /curl -s (\S+\/agent-runs) -H 'Authorization: (Bearer svc_[A-Za-z0-9]+)' -H 'Content-Type: application\/json' -d '(\{.*\})'/;
const ANY_KEY = /svc_[A-Za-z0-9]{20,}/;
/**
 * A clean stop takes well under a second; this bound only tells it from a stop that waited out the
 * grace period of runs in progress (8 s) or was cut by the forced exit (15 s, exit code 1).
 */
const STOPPED_PROMPTLY_MS = 8_000;

/** A long-running `agent-runs <command>` child whose output is collected as it arrives. */
class ServiceProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #waiters: Array<() => void> = [];

  constructor(
    args: readonly string[],
    env: Record<string, string>,
    nodeArgs: readonly string[] = [],
    entry = MAIN,
  ) {
    this.child = spawn(process.execPath, [...nodeArgs, entry, ...args], {
      cwd: REPO,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const notify = () => {
      for (const waiter of this.#waiters) waiter();
    };
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      notify();
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        resolve({ code, signal });
        notify();
      });
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first match of `pattern` on stdout; rejects if the process exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs = WAIT_CAP_MS): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.stdout);
        if (match) return finish(() => resolve(match));
        if (!this.running) {
          return finish(() =>
            reject(
              new Error(`exited before printing ${pattern}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`),
            ),
          );
        }
      };
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(
              new Error(
                `no ${pattern} within ${timeoutMs} ms\nstdout: ${this.stdout}\nstderr: ${this.stderr}`,
              ),
            ),
          ),
        timeoutMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        this.#waiters = this.#waiters.filter((waiter) => waiter !== check);
        settle();
      };
      this.#waiters.push(check);
      check();
    });
  }

  /** Sends `signal` and resolves with the exit, or rejects after `timeoutMs`. */
  async stop(
    signal: NodeJS.Signals = 'SIGTERM',
    timeoutMs = WAIT_CAP_MS,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const started = Date.now();
    if (this.running) this.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`did not exit within ${timeoutMs} ms of ${signal}\nstderr: ${this.stderr}`)),
        timeoutMs,
      );
    });
    try {
      const exit = await Promise.race([this.exited, timeout]);
      return { ...exit, ms: Date.now() - started };
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }
}

interface JsonResponse {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
}

interface Listening {
  service: ServiceProcess;
  baseUrl: string;
}

async function untilListening(service: ServiceProcess): Promise<Listening> {
  const [, baseUrl = ''] = await service.waitFor(LISTENING);
  return { service, baseUrl };
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

// serve and dev run as processes (signals, exit codes, the bin); the commands that exit run in-process.
describe('agent-runs dev / serve / migrate as processes', () => {
  let dir: string;
  const started: ServiceProcess[] = [];
  const start = (
    args: readonly string[],
    env: Record<string, string>,
    nodeArgs: readonly string[] = [],
    entry = MAIN,
  ) => {
    const service = new ServiceProcess(args, env, nodeArgs, entry);
    started.push(service);
    return service;
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-runs-dev-'));
  });
  afterEach(() => {
    for (const service of started.splice(0)) service.kill();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('dev mode on an empty database, without provider keys', () => {
    let env: Record<string, string>;
    let printed: { url: string; authorization: string } | undefined;

    before(() => {
      env = { DATABASE_URL: `sqlite:${join(dir, 'dev', 'agent-runs.db')}`, PORT: '0' };
    });

    it('prints listening on http://HOST:PORT and a curl whose URL and key answer 200 with mock/echo as the default model', async () => {
      const dev = start(['dev'], env);
      const [, baseUrl = ''] = await dev.waitFor(LISTENING);
      assert.match(baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.doesNotMatch(baseUrl, /:0$/, 'the printed port is the real one, not 0');
      const [, url = '', authorization = ''] = await dev.waitFor(CURL);
      assert.ok(
        url.startsWith(`${baseUrl}/api/v1/workspaces/default/`),
        `the curl targets workspace default on ${baseUrl}: ${url}`,
      );
      printed = { url, authorization };

      const response = await getJson(url, { authorization });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(response.body.defaultModelId, 'mock/echo');
      const mock = response.body.models.find((model: { id: string }) => model.id === 'mock/echo');
      assert.ok(mock, 'the offline mock model is listed');
      assert.equal(mock.provider, 'mock');
      assert.equal(mock.vendorModelId, 'echo');

      // The printed create-run curl works offline: 202 { runId, streamUrl }, and the stream ends in a result.
      const [, runUrl = '', runAuthorization = '', runBody = '{}'] = await dev.waitFor(RUN_CURL);
      const created = await fetch(runUrl, {
        method: 'POST',
        headers: { authorization: runAuthorization, 'content-type': 'application/json' },
        body: runBody,
      });
      assert.equal(created.status, 202);
      const { streamUrl } = (await created.json()) as { streamUrl: string };
      const stream = await (
        await fetch(`${baseUrl}${streamUrl}`, {
          headers: { authorization: runAuthorization },
          signal: AbortSignal.timeout(WAIT_CAP_MS), // the stream ends after the run's result
        })
      ).text();
      assert.match(stream, /event: result\n/);

      const stop = await dev.stop('SIGTERM');
      assert.equal(stop.code, 0, `exit code 0 on SIGTERM (stderr: ${dev.stderr})`);
      assert.ok(stop.ms < STOPPED_PROMPTLY_MS, `stopped promptly (${stop.ms} ms)`);
    });

    // The second start stays up for the next test, which stops it with SIGINT (one process start fewer).
    let second: Listening | undefined;
    after(() => second?.service.kill());

    it('a second start on the same database creates and prints no key, and the first key still works', async () => {
      assert.ok(printed, 'the first start printed a curl');
      const dev = new ServiceProcess(['dev'], env);
      const [, baseUrl = ''] = await dev.waitFor(LISTENING);
      second = { service: dev, baseUrl };
      assert.equal((await getJson(`${baseUrl}/healthz`)).status, 200);
      assert.doesNotMatch(dev.stdout, ANY_KEY, 'no API key is printed');
      assert.doesNotMatch(dev.stdout, /Authorization: Bearer svc_/);

      const path = new URL(printed.url).pathname;
      const response = await getJson(`${baseUrl}${path}`, { authorization: printed.authorization });
      assert.equal(response.status, 200);
      assert.equal(response.body.defaultModelId, 'mock/echo');
    });

    it('SIGINT also stops the server with exit code 0', async () => {
      // Run alone (--test-name-pattern), the test starts its own server.
      const { service: dev, baseUrl } = second ?? (await untilListening(start(['dev'], env)));
      assert.equal((await getJson(`${baseUrl}/healthz`)).status, 200);
      const stop = await dev.stop('SIGINT');
      assert.equal(stop.code, 0, dev.stderr);
      assert.ok(stop.ms < STOPPED_PROMPTLY_MS, `stopped promptly (${stop.ms} ms)`);
    });
  });

  describe('signals at the moment readiness is announced', () => {
    // A supervisor may signal the process the instant it reads `listening on`. This preload makes that
    // deterministic: the process signals itself right after writing the line, which is the earliest
    // moment anyone outside can see it. Regression: serve.ts used to register the handlers only after
    // printing `listening on` and the banner, so the default action killed the process.
    const SIGNAL_ON_LISTENING = (signal: NodeJS.Signals) =>
      `data:text/javascript,${encodeURIComponent(`
        const write = process.stdout.write.bind(process.stdout);
        process.stdout.write = (chunk, ...rest) => {
          const result = write(chunk, ...rest);
          if (String(chunk).startsWith('listening on ')) process.kill(process.pid, '${signal}');
          return result;
        };`)}`;

    for (const [command, signal] of [
      ['dev', 'SIGTERM'],
      ['serve', 'SIGINT'],
    ] as const) {
      it(`${command}: a ${signal} that arrives as soon as 'listening on' is printed still stops cleanly with exit code 0`, async () => {
        const service = start(
          [command],
          {
            DATABASE_URL: `sqlite:${join(dir, `early-${command}`, 'agent-runs.db')}`,
            PORT: '0',
            AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
          },
          ['--import', SIGNAL_ON_LISTENING(signal)],
        );
        const exit = await withCap(
          service.exited,
          WAIT_CAP_MS,
          () => `no exit within ${WAIT_CAP_MS} ms\nstdout: ${service.stdout}`,
        );
        assert.match(service.stdout, LISTENING);
        assert.deepEqual(exit, { code: 0, signal: null }, `stderr: ${service.stderr}`);
      });
    }
  });

  describe('launched through a shell, as npm start and npx do (sh -c)', () => {
    it('SIGTERM to the shell, which dies without passing it on, still stops the server cleanly', async () => {
      // Like `sh -c` under npm: the shell waits for the server and does not forward signals to it.
      const script = `"${process.execPath}" "${MAIN}" serve & echo "server pid $!"; wait`;
      const shell = spawn('/bin/sh', ['-c', script], {
        cwd: REPO,
        env: childEnv({
          DATABASE_URL: `sqlite:${join(dir, 'shell', 'agent-runs.db')}`,
          PORT: '0',
          AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      const listening = new Promise<void>((resolve) => {
        shell.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          if (LISTENING.test(stdout)) resolve();
        });
      });
      const serverPid = () => Number(/server pid (\d+)/.exec(stdout)?.[1]);
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      try {
        await withCap(listening, WAIT_CAP_MS, () => `the server did not start: ${stdout}`);
        const [, baseUrl = ''] = LISTENING.exec(stdout) ?? [];
        assert.ok(baseUrl, `the server started: ${stdout}`);
        assert.equal((await fetch(`${baseUrl}/healthz`)).status, 200);

        shell.kill('SIGTERM');
        // A process's end announces nothing to a non-parent: watch for it.
        await eventually(() => !alive(serverPid()), 'the server stopped once its launcher was gone', {
          intervalMs: 50,
        });
        assert.equal(alive(serverPid()), false, 'the server stopped once its launcher was gone');
      } finally {
        if (serverPid() > 0 && alive(serverPid())) process.kill(serverPid(), 'SIGKILL');
        shell.kill('SIGKILL');
      }
    });
  });

  describe('dev mode on a database that already has other workspaces', () => {
    // Regression: dev mode skips the bootstrap when *any* workspace exists; the banner used to claim
    // "workspace 'default' already exists" and suggest `admin api-keys create default` (a 404) anyway.
    it("creates no key and does not claim that a workspace 'default' exists when it does not", async () => {
      const env = { DATABASE_URL: `sqlite:${join(dir, 'populated', 'agent-runs.db')}`, PORT: '0' };
      const created = await runCliInProcess(
        ['admin', 'workspaces', 'create', '--slug', 'acme', '--json'],
        env,
      );
      assert.equal(created.code, 0, created.stderr);

      const dev = start(['dev'], env);
      const [, baseUrl = ''] = await dev.waitFor(LISTENING);
      assert.equal((await getJson(`${baseUrl}/healthz`)).status, 200);
      const stop = await dev.stop('SIGTERM');
      assert.equal(stop.code, 0);
      assert.doesNotMatch(dev.stdout, ANY_KEY, 'no key is printed for a database that was not empty');

      const listed = await runCliInProcess(['admin', 'workspaces', 'list', '--json'], env);
      const slugs = (JSON.parse(listed.stdout) as { workspaces: { slug: string }[] }).workspaces.map(
        (w) => w.slug,
      );
      assert.deepEqual(slugs, ['acme'], 'dev mode created no workspace in a populated database');
      assert.doesNotMatch(dev.stdout, /workspace 'default' already exists/, `stdout:\n${dev.stdout}`);
    });
  });

  // Started through bin/agent-runs.js, this server stays up for the first bin test, which stops it
  // (one process start fewer).
  let servedByBin: Listening | undefined;
  after(() => servedByBin?.service.kill());

  describe('serve on an empty database', () => {
    it('prints listening on, creates no workspace, prints no key and offers no mock model', async () => {
      const adminToken = randomBytes(24).toString('base64url');
      const serve = new ServiceProcess(
        ['serve'],
        {
          DATABASE_URL: `sqlite:${join(dir, 'serve', 'agent-runs.db')}`,
          PORT: '0',
          AGENT_RUNS_ADMIN_TOKEN: adminToken,
          AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
        },
        [],
        BIN,
      );
      const [, baseUrl = ''] = await serve.waitFor(LISTENING);
      servedByBin = { service: serve, baseUrl };
      const admin = { authorization: `Bearer ${adminToken}` };

      const workspaces = await getJson(`${baseUrl}/admin/v1/workspaces`, admin);
      assert.equal(workspaces.status, 200);
      assert.deepEqual(workspaces.body.workspaces, [], 'serve creates no workspace');

      // Provision a workspace and key to look at its catalog.
      const created = await fetch(`${baseUrl}/admin/v1/workspaces`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: 'prod' }),
      });
      assert.equal(created.status, 201);
      const keyResponse = await fetch(`${baseUrl}/admin/v1/workspaces/prod/api-keys`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: '{}',
      });
      const { key } = (await keyResponse.json()) as { key: string };
      const models = await getJson(`${baseUrl}/api/v1/workspaces/prod/models`, {
        authorization: `Bearer ${key}`,
      });
      assert.equal(models.status, 200);
      assert.ok(
        !models.body.models.some((model: { provider: string }) => model.provider === 'mock'),
        'no mock model',
      );
      assert.equal(models.body.defaultModelId, null);

      assert.doesNotMatch(serve.stdout, ANY_KEY, 'serve prints no key');
      assert.doesNotMatch(serve.stdout, /dev mode/);
    });
  });

  describe('serve with AGENT_RUNS_METRICS_PORT', () => {
    it("prints 'metrics listening on http://HOST:PORT', whose /metrics, /healthz and /readyz answer without a credential; SIGTERM stops it with exit code 0", async () => {
      const serve = start(['serve'], {
        DATABASE_URL: `sqlite:${join(dir, 'metrics', 'agent-runs.db')}`,
        PORT: '0',
        AGENT_RUNS_METRICS_PORT: '0',
        AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
      });
      const [, baseUrl = ''] = await serve.waitFor(LISTENING);
      const [, metricsUrl = ''] = await serve.waitFor(/^metrics listening on (http:\/\/\S+)$/m);
      assert.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(metricsUrl, baseUrl);
      const metrics = await fetch(`${metricsUrl}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /^# TYPE agent_runs_runs_created_total counter$/m);
      assert.deepEqual((await getJson(`${metricsUrl}/healthz`)).body, { status: 'ok' });
      assert.equal((await getJson(`${metricsUrl}/readyz`)).body.status, 'ready');
      // No token configured: the API's own /metrics does not exist.
      assert.equal((await fetch(`${baseUrl}/metrics`)).status, 404);
      assert.equal((await serve.stop()).code, 0);
    });
  });

  describe('serve through bin/agent-runs.js', () => {
    const serveEnv = (name: string, extra: Record<string, string> = {}) => ({
      DATABASE_URL: `sqlite:${join(dir, name, 'agent-runs.db')}`,
      PORT: '0',
      AGENT_RUNS_ADMIN_TOKEN: randomBytes(24).toString('base64url'),
      AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
      ...extra,
    });
    /** The command line the kernel reports for a process (Linux). */
    const commandLineOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

    it('runs in the process it was started as (same pid, SIGTERM stops it) under the service V8 flags', async () => {
      // Run alone (--test-name-pattern), the test starts its own server.
      const { service: serve, baseUrl } =
        servedByBin ?? (await untilListening(start(['serve'], serveEnv('bin-serve'), [], BIN)));
      assert.equal((await fetch(`${baseUrl}/healthz`)).status, 200);
      const commandLine = commandLineOf(serve.child.pid ?? 0);
      assert.ok(commandLine.includes('--max-semi-space-size=4'), commandLine.join(' '));
      assert.ok(commandLine.includes(MAIN), commandLine.join(' '));
      const stop = await serve.stop('SIGTERM');
      assert.equal(stop.code, 0, serve.stderr);
    });

    it("an operator's own value of the flag in NODE_OPTIONS wins: the bin adds none", async () => {
      const serve = start(
        ['serve'],
        serveEnv('bin-serve-own', { NODE_OPTIONS: '--max-semi-space-size=8' }),
        [],
        BIN,
      );
      await serve.waitFor(LISTENING);
      const commandLine = commandLineOf(serve.child.pid ?? 0);
      assert.ok(!commandLine.some((arg) => arg.startsWith('--max-semi-space-size')), commandLine.join(' '));
      assert.ok(commandLine.includes(BIN), 'not re-executed');
      assert.equal((await serve.stop('SIGTERM')).code, 0, serve.stderr);
    });
  });

  describe('migrate', () => {
    it('prints the applied migrations, then "up to date" on a second run', async () => {
      const path = join(dir, 'migrate', 'agent-runs.db');
      const env = { DATABASE_URL: `sqlite:${path}` };
      const first = await runCliInProcess(['migrate'], env);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /applied \d+ migration/);
      assert.match(first.stdout, /0001-foundation/);
      assert.ok(existsSync(path), 'the database file was created');

      const second = await runCliInProcess(['migrate'], env);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /up to date/);
      assert.doesNotMatch(second.stdout, /applied/);
    });
  });

  describe('bad configuration', () => {
    it('PORT=abc exits with code 2 and a message naming PORT, without listening', async () => {
      for (const command of ['serve', 'dev']) {
        const result = await runCliInProcess([command], {
          DATABASE_URL: `sqlite:${join(dir, 'bad', 'agent-runs.db')}`,
          PORT: 'abc',
        });
        assert.equal(result.code, 2, `${command}: ${result.stderr}`);
        assert.match(result.stderr, /PORT/);
        assert.doesNotMatch(result.stdout, /listening on/);
      }
    });

    it('PORT out of range exits with code 2 naming PORT', async () => {
      const result = await runCliInProcess(['serve'], {
        DATABASE_URL: `sqlite:${join(dir, 'bad', 'agent-runs.db')}`,
        PORT: '70000',
      });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /PORT/);
    });
  });
});
