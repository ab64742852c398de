import type { AddressInfo } from 'node:net';
import { assertRoleRequirements, listenerUrl, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createService } from '../main.ts';
import type { CliIo } from './cli-io.ts';
import { bootstrapDevWorkspace, DEV_WORKSPACE_SLUG, type DevBootstrap } from './dev-bootstrap.ts';
import { onShutdownSignal } from './shutdown.ts';
import { worker } from './worker.ts';

/** `agent-runs serve` (production) and `agent-runs dev` (`npm start`: bootstrap and the offline mock model). */
export async function serve(mode: 'serve' | 'dev', io: CliIo): Promise<void> {
  const config = loadConfig(io.env);
  assertRoleRequirements(config);
  // One command for every replica of a deployment: with the worker role, `serve` is `agent-runs worker`.
  if (config.role === 'worker') return worker(io);
  const logger = createLogger(config.logLevel);
  const service = await createService(config, { logger, dev: mode === 'dev', startModelThreads: true });
  const bootstrap =
    mode === 'dev'
      ? await bootstrapDevWorkspace(service.resources.repos, service.resources.credentials)
      : undefined;

  // Handlers first: a signal that arrives as soon as readiness is announced must still stop cleanly.
  onShutdownSignal(async (signal) => {
    logger.info({ signal }, 'shutting down');
    await service.close();
  });
  await service.app.listen({ port: config.port, host: config.host });
  const { port } = service.app.server.address() as AddressInfo;
  const listening = listenerUrl(config.host, port);
  const baseUrl = config.publicUrl ?? listening;
  io.stdout.write(`listening on ${listening}\n`);
  const management = await service.listenManagement();
  if (management) io.stdout.write(`metrics listening on ${management}\n`);
  if (bootstrap) io.stdout.write(devBanner(baseUrl, bootstrap));
}

function devBanner(baseUrl: string, bootstrap: DevBootstrap): string {
  if (bootstrap.kind === 'existing') {
    return bootstrap.hasDefaultWorkspace
      ? [
          '',
          `dev mode: workspace '${DEV_WORKSPACE_SLUG}' already exists (its API key was shown when it was created).`,
          `  new key: npx agent-runs admin api-keys create ${DEV_WORKSPACE_SLUG}`,
          '',
        ].join('\n')
      : [
          '',
          'dev mode: the database already has workspaces, so no bootstrap workspace was created.',
          '  list them: npx agent-runs admin workspaces list',
          '',
        ].join('\n');
  }
  const { apiKey } = bootstrap;
  const ws = `${baseUrl}/api/v1/workspaces/${DEV_WORKSPACE_SLUG}`;
  const auth = `-H 'Authorization: Bearer ${apiKey}'`;
  return [
    '',
    `dev mode: created workspace '${DEV_WORKSPACE_SLUG}' and an API key (shown once, keep it):`,
    `  ${apiKey}`,
    '',
    'create a run (answers { runId, streamUrl }):',
    `  curl -s ${ws}/agent-runs ${auth} -H 'Content-Type: application/json' -d '{"systemPrompt":"You are helpful.","prompt":"Hello!"}'`,
    '',
    'read its events (replace RUN_ID):',
    `  curl -sN ${ws}/agent-runs/RUN_ID/stream ${auth}`,
    '',
    'list the models:',
    `  curl -s ${ws}/models ${auth}`,
    '',
  ].join('\n');
}
