import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the service package carries the console (npm install && npm start serves it)', () => {
  it('npm pack includes every file of console/, and the browser libraries are runtime dependencies', async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    const packed = new Set(
      (JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((file) => file.path),
    );
    for (const name of readdirSync(`${ROOT}console`))
      assert.ok(packed.has(`console/${name}`), `console/${name} is packed`);
    const { dependencies } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const name of ['htm', 'eventsource-parser'])
      assert.ok(dependencies[name], `${name} is a dependency`);
  });
});
