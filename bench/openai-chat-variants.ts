/**
 * The streams of the OpenAI Chat parser benchmark (bench/openai-chat-parsers.ts), shared by the fake
 * provider's process and the consuming process: each variant is one scripted turn, served by its own
 * fake server, and what a consumer must make of it.
 */
import type { ModelToolDefinition } from '../src/engine/ports.ts';
import type { ScriptedToolCall, ScriptedTurn } from '../test/fakes/scripted-reply.ts';

export const VARIANT_NAMES = ['paced', 'burst', 'reasoning', 'tools', 'usage'] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];

export interface Variant {
  name: VariantName;
  /** One line for the report. */
  description: string;
  turn: ScriptedTurn;
  /** Whether the stream ends with the usage-only chunk (`choices: []`), whatever the request asked for. */
  usageChunk: boolean;
  /** Tool-call argument fragments of this many characters (the tools variant only). */
  argumentFragmentChars?: number;
  /** Tools the request declares. */
  tools?: ModelToolDefinition[];
  /** A reasoning level for the request (so the service's path forwards thought deltas). */
  reasoningLevel: number | null;
}

const TEXT_CHUNKS = 50;
const text = Array.from({ length: TEXT_CHUNKS }, (_, index) => (index === 0 ? 'tok0' : ` tok${index}`));
const usage = { inputTokens: 20, outputTokens: TEXT_CHUNKS };

const reasoningPieces = Array.from({ length: TEXT_CHUNKS }, (_, index) => ` thought${index}`);

/** Three calls whose JSON arguments (~200 characters each) arrive a few characters at a time. */
const toolCalls: ScriptedToolCall[] = [
  {
    id: 'call_weather_1',
    name: 'get_weather',
    input: {
      city: 'San Francisco',
      country: 'US',
      units: 'celsius',
      days: 5,
      include: ['wind', 'humidity', 'precipitation', 'uv_index'],
      note: 'morning and evening forecasts, hourly where available',
    },
  },
  {
    id: 'call_search_2',
    name: 'search_documents',
    input: {
      query: 'quarterly revenue by region 2024 compared with 2023',
      filters: { department: 'finance', type: ['report', 'spreadsheet'], year: 2024 },
      limit: 20,
      sort: 'relevance',
    },
  },
  {
    id: 'call_ticket_3',
    name: 'create_ticket',
    input: {
      title: 'Login page times out for users in the EU region',
      priority: 'high',
      labels: ['bug', 'auth', 'eu'],
      assignee: 'oncall-platform',
      body: 'Reported by three customers since 09:00 UTC; started after deploy 4812.',
    },
  },
];

const objectSchema = { type: 'object', additionalProperties: true };
const tools: ModelToolDefinition[] = toolCalls.map((call) => ({
  name: call.name,
  description: `The ${call.name} tool`,
  inputSchema: objectSchema,
}));

export const VARIANTS: Record<VariantName, Variant> = {
  paced: {
    name: 'paced',
    description: `the bench's standard stream: first chunk after 200 ms, then ${TEXT_CHUNKS} text chunks 5 ms apart (one read each)`,
    turn: { text, usage, firstChunkDelayMs: 200, chunkIntervalMs: 5 },
    usageChunk: false,
    reasoningLevel: null,
  },
  burst: {
    name: 'burst',
    description: `the same ${TEXT_CHUNKS} text chunks with no delays (written at once: a few reads per call)`,
    turn: { text, usage },
    usageChunk: false,
    reasoningLevel: null,
  },
  reasoning: {
    name: 'reasoning',
    description: `${TEXT_CHUNKS} reasoning_content deltas then ${TEXT_CHUNKS} text chunks, no delays`,
    turn: { thinking: reasoningPieces, text, usage },
    usageChunk: false,
    reasoningLevel: 50,
  },
  tools: {
    name: 'tools',
    description:
      '2 text chunks then 3 tool calls, arguments (~200 chars each) in 4-character fragments, no delays',
    turn: { text: ['Let me', ' check.'], toolCalls, usage },
    usageChunk: false,
    argumentFragmentChars: 4,
    tools,
    reasoningLevel: null,
  },
  usage: {
    name: 'usage',
    description: `the burst stream plus the final usage-only chunk (stream_options.include_usage)`,
    turn: { text, usage },
    usageChunk: true,
    reasoningLevel: null,
  },
};

/** What every consumer must get from a variant's stream. */
export interface ExpectedTurn {
  text: string;
  thinking: string;
  toolCalls: Array<{ id: string; name: string; input: unknown }>;
  finishReason: string;
  inputTokens: number;
  outputTokens: number;
}

export function expectedTurn(variant: Variant): ExpectedTurn {
  const { turn } = variant;
  return {
    text: (turn.text ?? []).join(''),
    thinking: (turn.thinking ?? []).join(''),
    toolCalls: (turn.toolCalls ?? []).map(({ id, name, input }) => ({ id, name, input })),
    finishReason: (turn.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn',
    inputTokens: variant.usageChunk ? (turn.usage?.inputTokens ?? 0) : 0,
    outputTokens: variant.usageChunk ? (turn.usage?.outputTokens ?? 0) : 0,
  };
}
