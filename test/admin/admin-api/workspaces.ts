import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { bearer, createWorkspaceWithKey, type TestServer } from '../../support/test-server.ts';
import { assertError, assertInvalid, ULID } from '../admin-support.ts';
import { readAll } from '../../support/sse-client.ts';

/** The admin API's workspaces cases, on the server of admin-api.test.ts. */
export function workspacesCases(serverOf: () => TestServer): void {
  describe('workspaces', () => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

    it('POST /workspaces answers 201 { id, slug } and features default to true', async () => {
      const created = await server.admin('POST', '/workspaces', { slug: 'ws-defaults' });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body).sort(), ['id', 'slug']);
      assert.match(created.body.id, new RegExp(`^ws_${ULID}$`));
      assert.equal(created.body.slug, 'ws-defaults');

      const fetched = await server.admin('GET', '/workspaces/ws-defaults');
      assert.equal(fetched.status, 200);
      assert.equal(fetched.body.id, created.body.id);
      assert.equal(fetched.body.slug, 'ws-defaults');
      assert.equal(fetched.body.name, 'ws-defaults', 'name defaults to the slug');
      assert.deepEqual(fetched.body.features, { apiKeys: true, oauthApps: true });
      assert.deepEqual(fetched.body.rateLimits, {});
      assert.equal(fetched.body.maxConcurrentRuns, 100, 'maxConcurrentRuns defaults to 100');
    });

    it('POST /workspaces stores name, features and rateLimits as given', async () => {
      const created = await server.admin('POST', '/workspaces', {
        slug: 'ws-full',
        name: 'Full Co',
        features: { oauthApps: false },
        rateLimits: { runStart: 5, otherMutations: 100 },
        maxConcurrentRuns: 3,
      });
      assert.equal(created.status, 201);
      const fetched = await server.admin('GET', '/workspaces/ws-full');
      assert.equal(fetched.body.name, 'Full Co');
      assert.equal(fetched.body.maxConcurrentRuns, 3);
      assert.deepEqual(fetched.body.features, { apiKeys: true, oauthApps: false });
      assert.deepEqual(fetched.body.rateLimits, { runStart: 5, otherMutations: 100 });
    });

    it('GET /workspaces lists created workspaces', async () => {
      await server.admin('POST', '/workspaces', { slug: 'ws-listed' });
      const listed = await server.admin('GET', '/workspaces');
      assert.equal(listed.status, 200);
      assert.ok(Array.isArray(listed.body.workspaces));
      const entry = listed.body.workspaces.find((w: { slug: string }) => w.slug === 'ws-listed');
      assert.ok(entry, 'the new workspace is listed');
      assert.deepEqual(entry.features, { apiKeys: true, oauthApps: true });
    });

    it('a duplicate slug answers 409 { error: "conflict", message }', async () => {
      assert.equal((await server.admin('POST', '/workspaces', { slug: 'ws-dup' })).status, 201);
      assertError(await server.admin('POST', '/workspaces', { slug: 'ws-dup' }), 409, 'conflict');
    });

    it('PATCH changes only the given fields, merging features and rateLimits, and answers 200 with the workspace', async () => {
      await server.admin('POST', '/workspaces', {
        slug: 'ws-patch',
        name: 'Before',
        rateLimits: { runStart: 7 },
      });
      const patched = await server.admin('PATCH', '/workspaces/ws-patch', {
        features: { oauthApps: false },
        rateLimits: { lifecycle: 50 },
      });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.slug, 'ws-patch');
      assert.equal(patched.body.name, 'Before');
      assert.deepEqual(patched.body.features, { apiKeys: true, oauthApps: false });
      assert.deepEqual(patched.body.rateLimits, { runStart: 7, lifecycle: 50 });

      const limited = await server.admin('PATCH', '/workspaces/ws-patch', { maxConcurrentRuns: 250 });
      assert.equal(limited.body.maxConcurrentRuns, 250);
      assert.deepEqual(limited.body.rateLimits, { runStart: 7, lifecycle: 50 }, 'the rest unchanged');

      const renamed = await server.admin('PATCH', '/workspaces/ws-patch', { name: 'After' });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.name, 'After');
      assert.deepEqual(renamed.body.features, { apiKeys: true, oauthApps: false });
      assert.equal((await server.admin('GET', '/workspaces/ws-patch')).body.name, 'After');
    });

    it('PATCH features { apiKeys: false } makes the workspace keys answer 403 api_keys_plan; true restores them', async () => {
      const ws = await createWorkspaceWithKey(server, 'ws-plan');
      assert.equal((await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) })).status, 200);

      assert.equal(
        (await server.admin('PATCH', '/workspaces/ws-plan', { features: { apiKeys: false } })).status,
        200,
      );
      const blocked = await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) });
      assert.equal(blocked.status, 403);
      assert.equal(blocked.body.error, 'api_keys_plan');
      assert.equal(typeof blocked.body.message, 'string');

      assert.equal(
        (await server.admin('PATCH', '/workspaces/ws-plan', { features: { apiKeys: true } })).status,
        200,
      );
      assert.equal((await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) })).status, 200);
    });

    it('DELETE answers 204, then the workspace is gone (404) and its keys answer 401', async () => {
      const ws = await createWorkspaceWithKey(server, 'ws-delete');
      const deleted = await server.admin('DELETE', '/workspaces/ws-delete');
      assert.equal(deleted.status, 204);
      assert.equal(deleted.body, undefined, '204 has no body');
      assertError(await server.admin('GET', '/workspaces/ws-delete'), 404, 'not_found');
      assert.equal((await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) })).status, 401);
      assertError(await server.admin('DELETE', '/workspaces/ws-delete'), 404, 'not_found');
    });

    it('DELETE removes the workspace’s runs and their events, and no other workspace’s (run_events has no foreign key on PostgreSQL: migration 0022)', async () => {
      const offering = await server.admin('POST', '/offerings', { provider: 'mock', vendorModelId: 'echo' });
      assert.ok(offering.status === 201 || offering.status === 409, JSON.stringify(offering.body));
      const db = server.service.resources.storage.db;
      const eventsOf = async (runId: string) =>
        (await db.selectFrom('run_events').select('seq').where('run_id', '=', runId).execute()).length;
      const runTo = async (ws: { ws: string; key: string }) => {
        const created = await server.request('POST', `${ws.ws}/agent-runs`, {
          headers: bearer(ws.key),
          body: { modelId: 'mock/echo', systemPrompt: 'Echo.', prompt: 'events to delete' },
        });
        assert.equal(created.status, 202, JSON.stringify(created.body));
        const frames = await readAll(`${server.baseUrl}${created.body.streamUrl}`, bearer(ws.key));
        assert.equal(frames.at(-1)?.event, 'result', 'the run ended');
        return { runId: created.body.runId as string, events: frames.length };
      };
      const deleted = await createWorkspaceWithKey(server, 'ws-delete-runs');
      const kept = await createWorkspaceWithKey(server, 'ws-keep-runs');
      const gone = await runTo(deleted);
      const stays = await runTo(kept);
      assert.equal(await eventsOf(gone.runId), gone.events, 'the log holds every streamed event');

      assert.equal((await server.admin('DELETE', '/workspaces/ws-delete-runs')).status, 204);
      assert.equal(await eventsOf(gone.runId), 0, 'no event of a deleted run is left behind');
      assert.equal(
        (await db.selectFrom('runs').select('id').where('id', '=', gone.runId).execute()).length,
        0,
        'the run is deleted with its workspace',
      );
      assert.equal(await eventsOf(stays.runId), stays.events, 'another workspace’s events are kept');
    });

    it('an unknown slug answers 404 { error: "not_found", message } on get, patch and delete', async () => {
      assertError(await server.admin('GET', '/workspaces/no-such-ws'), 404, 'not_found');
      assertError(await server.admin('PATCH', '/workspaces/no-such-ws', { name: 'x' }), 404, 'not_found');
      assertError(await server.admin('DELETE', '/workspaces/no-such-ws'), 404, 'not_found');
    });

    it('bad workspace input answers 400 invalid_request naming the field, never 500', async () => {
      assertInvalid(await server.admin('POST', '/workspaces', {}), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { name: 'no slug' }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'Upper-Case' }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: '-leading-dash' }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'has space' }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'a'.repeat(65) }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 42 }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'ws-bad', bogus: true }), 'bogus');
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', features: { apiKeys: 'yes' } }),
        'features',
      );
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', features: { billing: true } }),
        'features',
      );
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', rateLimits: { runStart: 0 } }),
        'rateLimits',
      );
      for (const maxConcurrentRuns of [0, 2.5, '10', 100_001]) {
        assertInvalid(
          await server.admin('POST', '/workspaces', { slug: 'ws-bad', maxConcurrentRuns }),
          'maxConcurrentRuns',
        );
        assertInvalid(
          await server.admin('PATCH', '/workspaces/ws-defaults', { maxConcurrentRuns }),
          'maxConcurrentRuns',
        );
      }
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', rateLimits: { runStart: 1.5 } }),
        'rateLimits',
      );
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', rateLimits: { runStart: '10' } }),
        'rateLimits',
      );
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'ws-bad', name: '' }), 'name');
      assertInvalid(await server.admin('POST', '/workspaces', ['ws-bad']));
      assertInvalid(await server.admin('POST', '/workspaces', 'ws-bad'));
      assert.equal((await server.admin('GET', '/workspaces/ws-bad')).status, 404, 'nothing was created');

      await server.admin('POST', '/workspaces', { slug: 'ws-badpatch' });
      assertInvalid(await server.admin('PATCH', '/workspaces/ws-badpatch', { slug: 'renamed' }), 'slug');
      assertInvalid(
        await server.admin('PATCH', '/workspaces/ws-badpatch', { features: { apiKeys: 1 } }),
        'features',
      );
      assertInvalid(
        await server.admin('PATCH', '/workspaces/ws-badpatch', { rateLimits: { lifecycle: -1 } }),
        'rateLimits',
      );
    });

    // Regression: Fastify answered a malformed path itself (FST_ERR_BAD_URL) with
    // { error: 'Bad Request', code, statusCode }, bypassing the app's error handler.
    it('a slug with malformed percent-encoding answers 400 { error: "invalid_request", message }', async () => {
      const response = await server.admin('GET', '/workspaces/%E0%A4%A');
      assertInvalid(response);
    });

    it('a body that is not valid JSON answers 400 invalid_request', async () => {
      const response = await server.request('POST', '/admin/v1/workspaces', {
        body: '{"slug": "ws-json",',
        headers: bearer(server.adminToken),
      });
      assertInvalid(response);
      const patch = await server.request('PATCH', '/admin/v1/workspaces/ws-json', {
        body: 'not json at all',
        headers: bearer(server.adminToken),
      });
      assertInvalid(patch);
    });
  });
}
