import { runShard } from '../support/test-shards.ts';

await runShard(import.meta.url);
