import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SHARD_COUNT, filesOfShard } from './support/test-shards.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

describe('npm test runs every test file once, in shards', () => {
  it('the shards deal every test/**/*.test.ts to exactly one shard', () => {
    const dealt = Array.from({ length: SHARD_COUNT }, (_, index) => filesOfShard(index)).flat();
    const all = globSync('test/**/*.test.ts', { cwd: ROOT }).sort();
    assert.deepEqual([...dealt].sort(), all);
    assert.equal(new Set(dealt).size, dealt.length, 'no file is in two shards');
  });

  it('test/shards holds one module per shard and npm test runs them', () => {
    const modules = globSync('test/shards/*.ts', { cwd: ROOT }).sort();
    assert.deepEqual(
      modules,
      Array.from(
        { length: SHARD_COUNT },
        (_, index) => `test/shards/shard-${String(index).padStart(2, '0')}.ts`,
      ),
    );
    const scripts = (
      JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    assert.match(scripts.test ?? '', /--test\b.*'test\/shards\/\*\.ts'/);
  });
});
