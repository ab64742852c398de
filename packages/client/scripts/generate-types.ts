/**
 * Regenerates packages/client/src/generated/openapi.ts from the service's OpenAPI document, as the
 * `agent-runs openapi` command prints it (the document GET /openapi.json serves). Run from anywhere:
 *
 *   node packages/client/scripts/generate-types.ts
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { GENERATED_TYPES_PATH, renderOpenApiTypes } from './openapi-types.ts';

const ROOT = new URL('../../../', import.meta.url);

async function openApiDocument(): Promise<unknown> {
  const cli = new URL('bin/agent-runs.js', ROOT).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, [cli, 'openapi'], {
    cwd: ROOT.pathname,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout);
}

const target = new URL(GENERATED_TYPES_PATH, ROOT);
await writeFile(target, await renderOpenApiTypes(await openApiDocument(), ROOT));
process.stdout.write(`wrote ${target.pathname}\n`);
