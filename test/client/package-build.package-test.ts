import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startClientFixture, type ClientFixture } from './client-fixture.ts';
import { embeddedOnly } from '../support/deployment.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Under node_modules so that the built files resolve the package's dependencies as an install would.
const OUT_DIR = `${ROOT}node_modules/.cache/agent-runs-client-build`;

describe(
  'the published build of @agent-runs/client',
  embeddedOnly('what it checks is the build; the deployment only serves its run'),
  () => {
    let fixture: ClientFixture;
    before(async () => {
      fixture = await startClientFixture('sdk-build');
    });
    after(async () => {
      await fixture.close();
      await rm(OUT_DIR, { recursive: true, force: true });
    });

    it('compiles to JavaScript with declarations that plain Node runs, without the source condition', async () => {
      await rm(OUT_DIR, { recursive: true, force: true });
      const tsc = `${ROOT}node_modules/typescript/bin/tsc`;
      await run(process.execPath, [tsc, '-p', 'packages/client/tsconfig.build.json', '--outDir', OUT_DIR], {
        cwd: ROOT,
      });
      await access(`${OUT_DIR}/index.d.ts`);
      await access(`${OUT_DIR}/generated/openapi.d.ts`);

      const script = `
      const { AgentRunsClient } = await import(${JSON.stringify(`${OUT_DIR}/index.js`)});
      const client = new AgentRunsClient({ baseUrl: process.env.URL, workspace: 'sdk-build', credential: process.env.KEY });
      const outcome = await client.runs.run({ systemPrompt: 's', prompt: 'built' });
      console.log(outcome.result.text);`;
      const { stdout } = await run(process.execPath, ['--input-type=module', '--eval', script], {
        cwd: ROOT,
        env: { ...process.env, URL: fixture.server.baseUrl, KEY: fixture.key },
      });
      assert.equal(stdout, 'You said: built\n');
    });
  },
);
