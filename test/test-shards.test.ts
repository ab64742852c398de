import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  SCALE_SHARDS,
  SUITE_SHARDS,
  filesOfSet,
  filesOfShard,
  type ShardSet,
} from './support/test-shards.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const scripts = (
  JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }
).scripts;

function checksShards(title: string, set: ShardSet, script: string): void {
  describe(title, () => {
    it(`the shards deal every file of ${set.patterns.join(', ')} to exactly one shard`, () => {
      const dealt = Array.from({ length: set.count }, (_, index) => filesOfShard(set, index)).flat();
      assert.deepEqual([...dealt].sort(), filesOfSet(set));
      assert.equal(new Set(dealt).size, dealt.length, 'no file is in two shards');
    });

    it(`${set.folder} holds one module per shard and npm run ${script} runs them`, () => {
      const modules = globSync(`${set.folder}/*.ts`, { cwd: ROOT }).sort();
      assert.deepEqual(
        modules,
        Array.from(
          { length: set.count },
          (_, index) => `${set.folder}/shard-${String(index).padStart(2, '0')}.ts`,
        ),
      );
      assert.match(scripts[script] ?? '', new RegExp(`--test\\b.*'${set.folder}/\\*\\.ts'`));
    });
  });
}

checksShards('npm test runs every test file once, in shards', SUITE_SHARDS, 'test');

checksShards(
  'npm run test:scale runs its suites once each, in shards, scale-out',
  SCALE_SHARDS,
  'test:scale',
);

describe('the scale-out run', () => {
  it('holds the HTTP-level and storage suites (the same files as npm test) and runs test/scale/ beside them', () => {
    const files = filesOfSet(SCALE_SHARDS);
    const all = new Set(filesOfSet(SUITE_SHARDS));
    assert.ok(files.length > 100, `only ${files.length} files`);
    for (const file of files) assert.ok(all.has(file), `${file} is not a test file of npm test`);
    for (const folder of ['runs', 'sessions', 'storage', 'webhooks', 'a2a', 'oauth']) {
      assert.ok(
        files.some((file) => file.startsWith(`test/${folder}/`)),
        `no file of test/${folder}/`,
      );
    }
    assert.match(
      scripts['test:scale'] ?? '',
      /AGENT_RUNS_TEST_DEPLOYMENT=scale-out .*'test\/scale\/\*\*\/\*\.scale-test\.ts'/,
    );
  });
});
