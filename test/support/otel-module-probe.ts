/**
 * Starts the service on the configuration of its environment, stops it, and prints (one JSON line)
 * every `@opentelemetry/*` module the process resolved meanwhile: a hook on module resolution, set
 * before the service is imported, sees every import and require.
 */
import { registerHooks } from 'node:module';
import pino from 'pino';

const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    const match = /\/node_modules\/(@opentelemetry\/[^/]+)\//.exec(result.url);
    if (match?.[1]) resolved.add(match[1]);
    return result;
  },
});

const { loadConfig } = await import('../../src/config.ts');
const { createService } = await import('../../src/main.ts');
const service = await createService(loadConfig(process.env), {
  logger: pino({ level: 'silent' }),
  dev: false,
});
const health = await service.app.inject({ method: 'GET', url: '/healthz' });
await service.close();
process.stdout.write(`${JSON.stringify({ health: health.statusCode, modules: [...resolved].sort() })}\n`);
