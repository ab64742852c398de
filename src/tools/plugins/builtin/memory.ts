import { monotonicFactory } from 'ulid';
import type {
  PluginContext,
  PluginRecord,
  PluginRecords,
  ToolPlugin,
  ToolPluginModule,
} from '../tool-plugin.ts';

const DEFAULT_RECALL_LIMIT = 20;
/** A query filters in memory, so recall searches at most this many of the newest memories. */
const RECALL_SEARCH_WINDOW = 1000;

const nextUlid = monotonicFactory();

/** Time-ordered: the store's tie-break by key keeps two memories of one millisecond newest first. */
function newMemoryKey(): string {
  return `mem_${nextUlid().toLowerCase()}`;
}

function memoryOf(context: PluginContext): PluginRecords {
  if (context.records === undefined) {
    throw new Error(
      'memory needs a run of a persisted agent (created with agentId): an ephemeral run has no agent to keep memories for',
    );
  }
  return context.records;
}

export const rememberPlugin: ToolPlugin = {
  name: 'remember',
  description:
    'Stores a memory that later runs of this agent can recall. Give a key to replace an earlier memory with that key.',
  parameters: {
    type: 'object',
    properties: {
      content: { type: 'string', minLength: 1, maxLength: 4000, description: 'What to remember.' },
      key: {
        type: 'string',
        minLength: 1,
        maxLength: 120,
        description: 'Optional key; remembering an existing key replaces that memory.',
      },
    },
    required: ['content'],
    additionalProperties: false,
  },
  async execute(args, context) {
    const records = memoryOf(context);
    const content = String(args.content);
    const key = typeof args.key === 'string' ? args.key : newMemoryKey();
    const replaced = (await records.get(key)) !== undefined;
    await records.put(key, content);
    return replaced ? `Replaced the memory '${key}'.` : `Remembered as '${key}'.`;
  },
};

export const recallPlugin: ToolPlugin = {
  name: 'recall',
  description:
    "Lists this agent's memories, newest first; with a query, only those containing it (case-insensitive).",
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', maxLength: 4000, description: 'Text the memories must contain.' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: DEFAULT_RECALL_LIMIT },
    },
    additionalProperties: false,
  },
  readOnly: true,
  async execute(args, context) {
    const records = memoryOf(context);
    const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_RECALL_LIMIT;
    const query = typeof args.query === 'string' && args.query !== '' ? args.query.toLowerCase() : undefined;
    if (query === undefined) return numbered(await records.list(limit), 'no memories yet');
    const newest = await records.list(RECALL_SEARCH_WINDOW);
    if (newest.length === 0) return 'no memories yet';
    const matching = newest.filter((memory) => memory.value.toLowerCase().includes(query));
    return numbered(matching.slice(0, limit), `no memories contain '${String(args.query)}'`);
  },
};

function numbered(memories: readonly PluginRecord[], empty: string): string {
  if (memories.length === 0) return empty;
  return memories
    .map((memory, index) => `${index + 1}. [${memory.key}, ${memory.updatedAt}] ${memory.value}`)
    .join('\n');
}

/** `remember` and `recall`, sharing the 'memory' namespace of the agent's records. */
export const memoryModule: ToolPluginModule = { name: 'memory', plugins: [rememberPlugin, recallPlugin] };
