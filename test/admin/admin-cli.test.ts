import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createService } from '../../src/main.ts';
import { BIN, runCli, runCliInProcess, type CliResult } from '../support/cli.ts';
import { bearer, startTestServer, type TestServer } from '../support/test-server.ts';
import { embeddedOnly } from '../support/deployment.ts';

// The CLI runs as a function here (runCliInProcess); the two tests named 'spawned' run the real binary.
const run = runCliInProcess;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
function json(result: CliResult): any {
  assert.equal(result.code, 0, `exit code 0 expected\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `--json prints one JSON line, got:\n${result.stdout}`);
  return JSON.parse(lines[0] ?? '');
}

describe(
  'agent-runs admin (in-process on DATABASE_URL)',
  embeddedOnly('the CLI opens a SQLite database of its own: nothing here depends on the deployment'),
  () => {
    let dir: string;
    let env: Record<string, string>;
    const admin = (...args: string[]) => run(['admin', ...args], env);

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'agent-runs-cli-'));
      env = {
        DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`,
        AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
      };
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    let key = '';
    let keyId = '';

    it('workspaces create --slug acme --json prints { id, slug } and exits 0', async () => {
      const body = json(await admin('workspaces', 'create', '--slug', 'acme', '--json'));
      assert.deepEqual(Object.keys(body).sort(), ['id', 'slug']);
      assert.match(body.id, /^ws_/);
      assert.equal(body.slug, 'acme');
    });

    it('api-keys create acme --json prints { id, key } with an svc_ key', async () => {
      const body = json(await admin('api-keys', 'create', 'acme', '--name', 'cli key', '--json'));
      assert.deepEqual(Object.keys(body).sort(), ['id', 'key']);
      assert.match(body.id, /^key_/);
      assert.match(body.key, /^svc_[A-Za-z0-9]+$/);
      key = body.key;
      keyId = body.id;
    });

    it('api-keys list acme --json lists the key by id and never prints the key itself', async () => {
      assert.ok(key, 'a key was created by the previous test');
      const result = await admin('api-keys', 'list', 'acme', '--json');
      const body = json(result);
      assert.ok(!result.stdout.includes(key), 'the list output does not contain the key');
      assert.ok(!result.stderr.includes(key));
      const entry = body.apiKeys.find((apiKey: { id: string }) => apiKey.id === keyId);
      assert.ok(entry, 'the key is listed');
      assert.equal(entry.name, 'cli key');
      assert.equal(entry.usage, 'developer_api');
    });

    it('what the CLI creates lives in DATABASE_URL: a server on that database accepts the key', async () => {
      assert.ok(key, 'a key was created by an earlier test');
      const service = await createService(loadConfig({ ...env, PORT: '0' }), {
        logger: pino({ level: 'silent' }),
        dev: false,
      });
      try {
        const response = await service.app.inject({
          method: 'GET',
          url: '/api/v1/workspaces/acme/models',
          headers: bearer(key),
        });
        assert.equal(response.statusCode, 200, response.body);
      } finally {
        await service.close();
      }
    });

    it('without --json a success prints the request line and the body on stdout and exits 0', async () => {
      const result = await admin('workspaces', 'get', 'acme');
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /GET \/admin\/v1\/workspaces\/acme → 200/);
      assert.match(result.stdout, /"slug": "acme"/);
      assert.equal(result.stderr, '');
    });

    it('--flag values that parse as JSON are sent as JSON, and dashed flags become camelCase fields', async () => {
      const created = json(
        await admin(
          'workspaces',
          'create',
          '--slug',
          'flags',
          '--features',
          '{"oauthApps":false}',
          '--rate-limits',
          '{"runStart":3}',
          '--max-concurrent-runs',
          '7',
          '--json',
        ),
      );
      assert.equal(created.slug, 'flags');
      const fetched = json(await admin('workspaces', 'get', 'flags', '--json'));
      assert.deepEqual(fetched.features, { apiKeys: true, oauthApps: false });
      assert.deepEqual(fetched.rateLimits, { runStart: 3 });
      assert.equal(fetched.maxConcurrentRuns, 7);

      const updated = json(
        await admin('workspaces', 'update', 'flags', '--name=Renamed', '--max-concurrent-runs=12', '--json'),
      );
      assert.equal(updated.name, 'Renamed');
      assert.equal(updated.maxConcurrentRuns, 12);

      const provider = json(
        await admin(
          'providers',
          'create',
          'flags',
          '--provider',
          'cli-llm',
          '--api',
          'openai-chat',
          '--base-url',
          'https://127.0.0.1:9/v1',
          '--models',
          '[{"vendorModelId":"m1"}]',
          '--is-default',
          'true',
          '--json',
        ),
      );
      assert.match(provider.id, /^prov_/);
      const providers = json(await admin('providers', 'list', 'flags', '--json'));
      assert.equal(providers.providers[0]?.isDefault, true);
      assert.equal(providers.providers[0]?.baseUrl, 'https://127.0.0.1:9/v1');

      const app = json(
        await admin(
          'oauth-apps',
          'create',
          'flags',
          '--data',
          '{"name":"App","redirectUris":["https://127.0.0.1:9/cb"]}',
          '--json',
        ),
      );
      assert.deepEqual(Object.keys(app).sort(), ['clientId', 'clientSecret']);
    });

    it('a flag is typed by its field: values the field takes as a string stay strings (--slug 2024, --name true), others are JSON (--reasoning-level 50)', async () => {
      const created = json(await admin('workspaces', 'create', '--slug', '2024', '--name', 'true', '--json'));
      assert.equal(created.slug, '2024');
      const fetched = json(await admin('workspaces', 'get', '2024', '--json'));
      assert.equal(fetched.name, 'true');
      const renamed = json(await admin('workspaces', 'update', '2024', '--name', '7', '--json'));
      assert.equal(renamed.name, '7');
      const agent = json(
        await admin(
          'agents',
          'create',
          '2024',
          '--name',
          '42',
          '--system-prompt',
          '7',
          '--reasoning-level',
          '50',
          '--json',
        ),
      );
      assert.match(agent.id, /^agt_/);
      assert.equal(agent.slug, '42');
      const [listed] = json(await admin('agents', 'list', '2024', '--json')).agents;
      assert.equal(listed?.systemPrompt, '7');
      assert.equal(listed?.reasoningLevel, 50);
      assert.equal((await admin('workspaces', 'delete', '2024', '--json')).code, 0);
    });

    it('delete prints nothing with --json and exits 0; the key is then revoked', async () => {
      const created = json(await admin('api-keys', 'create', 'acme', '--json'));
      const deleted = await admin('api-keys', 'delete', 'acme', created.id, '--json');
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout, '');
      const listed = json(await admin('api-keys', 'list', 'acme', '--json'));
      const entry = listed.apiKeys.find((apiKey: { id: string }) => apiKey.id === created.id);
      assert.notEqual(entry?.revokedAt, null);
    });

    it('bad input exits 1 and prints the 400 { error: invalid_request, message } body on stderr', async () => {
      const result = await admin('workspaces', 'create', '--slug', 'Not A Slug');
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /POST \/admin\/v1\/workspaces → 400/);
      const body = JSON.parse(result.stderr.slice(result.stderr.indexOf('{')));
      assert.equal(body.error, 'invalid_request');
      assert.match(body.message, /slug/);

      const unknownField = await admin('workspaces', 'create', '--slug', 'ok-slug', '--colour', 'blue');
      assert.equal(unknownField.code, 1);
      assert.match(unknownField.stderr, /→ 400/);
      assert.match(unknownField.stderr, /colour/);
      assert.equal(
        json(await admin('workspaces', 'list', '--json')).workspaces.some(
          (w: { slug: string }) => w.slug === 'ok-slug',
        ),
        false,
      );
    });

    it('with --json a failed call still exits 1 and prints the error body as JSON', async () => {
      const result = await admin(
        'tools',
        'create',
        'acme',
        '--name',
        'has-dash',
        '--http',
        '{"url":"https://127.0.0.1:9/"}',
        '--json',
      );
      assert.equal(result.code, 1);
      const printed = (result.stdout.trim() || result.stderr.trim()).split('\n').at(-1) ?? '';
      const body = JSON.parse(printed);
      assert.equal(body.error, 'invalid_request');
      assert.match(body.message, /name/);
    });

    it('a conflict exits 1 with the 409 body; an unknown workspace exits 1 with the 404 body', async () => {
      const duplicate = await admin('workspaces', 'create', '--slug', 'acme');
      assert.equal(duplicate.code, 1);
      assert.match(duplicate.stderr, /→ 409/);
      assert.match(duplicate.stderr, /"error": "conflict"/);

      const missing = await admin('api-keys', 'list', 'no-such-ws');
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /→ 404/);
      assert.match(missing.stderr, /"error": "not_found"/);
    });

    it('oauth-grants list acme --json lists the grants users gave (none yet)', async () => {
      assert.deepEqual(json(await admin('oauth-grants', 'list', 'acme', '--json')), { oauthGrants: [] });
    });

    it('usage errors exit 2 with the usage text on stderr', async () => {
      const cases: string[][] = [
        ['frobs', 'list'],
        ['workspaces'],
        ['workspaces', 'explode'],
        ['workspaces', 'get'],
        ['workspaces', 'delete'],
        ['api-keys', 'list'],
        ['api-keys', 'delete', 'acme'],
        ['workspaces', 'create', '--slug'],
        ['workspaces', 'create', '--data', 'not json'],
        ['workspaces', 'create', '--data', '[1,2]'],
        ['oauth-grants', 'create', 'acme'],
      ];
      const results = await Promise.all(cases.map((args) => admin(...args)));
      for (const [index, args] of cases.entries()) {
        const result = results[index];
        assert.ok(result);
        assert.equal(result.code, 2, `admin ${args.join(' ')} exits 2 (stderr: ${result.stderr})`);
        assert.match(result.stderr, /agent-runs admin: /, `admin ${args.join(' ')} explains the problem`);
        assert.match(result.stderr, /usage: agent-runs admin/);
      }
      const bare = await admin();
      assert.equal(bare.code, 2, 'admin with no arguments exits 2');
      assert.match(bare.stdout + bare.stderr, /usage: agent-runs admin/);
      assert.equal(
        json(await admin('workspaces', 'list', '--json')).workspaces.length,
        2,
        'no usage error created anything',
      );
    });

    it('--help prints the usage and exits 0; an unknown top-level command exits 2', async () => {
      const help = await admin('--help');
      assert.equal(help.code, 0);
      assert.match(help.stdout, /usage: agent-runs admin/);
      const unknown = await run(['frobnicate'], env);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown command 'frobnicate'/);
    });

    it('spawned: bin/agent-runs.js runs the same CLI and exits 0', async () => {
      const result = await runCli(['admin', 'workspaces', 'get', 'acme', '--json'], env, { entry: BIN });
      assert.equal(json(result).slug, 'acme');
    });
  },
);

describe(
  'agent-runs admin --url (against a running server)',
  embeddedOnly('the CLI speaks the admin API, which admin-api covers on this deployment'),
  () => {
    let server: TestServer;
    let dir: string;
    let env: Record<string, string>;
    const admin = (...args: string[]) => run(['admin', ...args, '--url', server.baseUrl], env);

    before(async () => {
      server = await startTestServer();
      dir = mkdtempSync(join(tmpdir(), 'agent-runs-cli-url-'));
      // DATABASE_URL points at an unused file: --url mode must not touch a local database.
      env = { DATABASE_URL: `sqlite:${join(dir, 'unused.db')}`, AGENT_RUNS_ADMIN_TOKEN: server.adminToken };
    });
    after(async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates a workspace and a key on the server, lists keys without the key, and the key works', async () => {
      const workspace = json(await admin('workspaces', 'create', '--slug', 'remote', '--json'));
      assert.equal(workspace.slug, 'remote');
      assert.equal((await server.admin('GET', '/workspaces/remote')).body.id, workspace.id);

      const created = json(await admin('api-keys', 'create', 'remote', '--json'));
      assert.match(created.key, /^svc_/);
      const listed = await admin('api-keys', 'list', 'remote', '--json');
      assert.ok(!listed.stdout.includes(created.key));
      assert.ok(json(listed).apiKeys.some((apiKey: { id: string }) => apiKey.id === created.id));

      const models = await server.request('GET', '/api/v1/workspaces/remote/models', {
        headers: bearer(created.key),
      });
      assert.equal(models.status, 200);

      const deleted = await admin('api-keys', 'delete', 'remote', created.id);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.match(deleted.stdout, /DELETE \/admin\/v1\/workspaces\/remote\/api-keys\/\S+ → 204/);
      assert.equal(
        (await server.request('GET', '/api/v1/workspaces/remote/models', { headers: bearer(created.key) }))
          .status,
        401,
      );
    });

    it('bad input exits 1 with the 400 body on stderr', async () => {
      const result = await admin('workspaces', 'create', '--slug', '-bad-');
      assert.equal(result.code, 1);
      assert.match(result.stderr, /→ 400/);
      assert.match(result.stderr, /"error": "invalid_request"/);
    });

    it('a wrong admin token exits 1 with the 401 body', async () => {
      const result = await run(['admin', 'workspaces', 'list', '--url', server.baseUrl], {
        ...env,
        AGENT_RUNS_ADMIN_TOKEN: 'not-the-admin-token-at-all',
      });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /→ 401/);
      assert.match(result.stderr, /"error": "unauthorized"/);
    });

    it('spawned: --url without AGENT_RUNS_ADMIN_TOKEN is a usage error: bin/agent-runs.js exits 2 naming the variable', async () => {
      const result = await runCli(
        ['admin', 'workspaces', 'list', '--url', server.baseUrl],
        { DATABASE_URL: env.DATABASE_URL ?? '' },
        { entry: BIN },
      );
      assert.equal(result.code, 2);
      assert.match(result.stderr, /AGENT_RUNS_ADMIN_TOKEN/);
    });

    it('--url to a server that is not there exits non-zero with an error on stderr', async () => {
      const result = await run(['admin', 'workspaces', 'list', '--url', 'http://127.0.0.1:9'], env);
      assert.notEqual(result.code, 0);
      assert.ok(result.stderr.length > 0);
    });
  },
);
