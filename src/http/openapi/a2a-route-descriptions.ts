/**
 * The descriptions of the hosted A2A endpoint's routes (`routes/a2a/`), ready for `describeRoute`:
 * its card at the endpoint and under `.well-known`, and its JSON-RPC calls.
 */
import {
  a2aAgentCardSchema,
  a2aJsonRpcRequestSchema,
  a2aJsonRpcResponseSchema,
} from '../schemas/responses/a2a.ts';
import type { RouteDescription } from './describe-route.ts';
import type { JsonRpcMethodBuckets } from './route-bucket.ts';

/** Messages start runs; cancelling is lifecycle; reading tasks is transport; anything else another mutation. */
const A2A_CALL_BUCKETS: JsonRpcMethodBuckets = {
  byJsonRpcMethod: {
    'message/send': 'run_start',
    'message/stream': 'run_start',
    'tasks/cancel': 'lifecycle',
    'tasks/get': 'transport',
    'tasks/resubscribe': 'transport',
    // A2A 1.0 (with `A2A-Version: 1.0`): the same methods under their 1.0 names.
    SendMessage: 'run_start',
    SendStreamingMessage: 'run_start',
    CancelTask: 'lifecycle',
    GetTask: 'transport',
    SubscribeToTask: 'transport',
  },
  otherwise: 'other_mutations',
};

const cardAnswer = {
  responses: { 200: { description: "The agent's card.", body: a2aAgentCardSchema } },
  errors: ['forbidden'],
} as const;

export const A2A_ENDPOINT_CARD: RouteDescription = {
  operationId: 'getA2aAgentCard',
  summary: "A hosted agent's Agent Card",
  description:
    "The card of a workspace agent, served at the agent's JSON-RPC endpoint: the A2A 1.0 card when the request says `A2A-Version: 1.0` (as 1.0 clients do), else the v0.3 card. Both list both interfaces (1.0 and 0.3) in `supportedInterfaces`.",
  tags: ['a2a'],
  scopes: ['runs:write'],
  bucket: 'transport',
  ...cardAnswer,
};

export const A2A_WELL_KNOWN_CARD: RouteDescription = {
  operationId: 'getA2aWellKnownAgentCard',
  summary: "A hosted agent's Agent Card (well-known path)",
  description: 'The same card where A2A peers look for it (1.0 with `A2A-Version: 1.0`, else v0.3).',
  tags: ['a2a'],
  scopes: ['runs:write'],
  bucket: 'transport',
  ...cardAnswer,
};

export const A2A_JSON_RPC: RouteDescription = {
  operationId: 'callA2aAgent',
  summary: 'Call a hosted agent (A2A JSON-RPC)',
  description:
    'JSON-RPC 2.0 in A2A v0.3 shapes, or in A2A 1.0 when the request says `A2A-Version: 1.0` (extensions §10). `message/send` (1.0: `SendMessage`) runs the agent and answers with its reply, whose `metadata.svc` carries the usage triple; `message/stream` (`SendStreamingMessage`) answers as Server-Sent Events, one JSON-RPC response per `data:` frame; `tasks/get`, `tasks/cancel` and `tasks/resubscribe` (`GetTask`, `CancelTask`, `SubscribeToTask`) act on streamed tasks, from any replica. Another `A2A-Version` is -32009. Malformed bodies and failures are JSON-RPC errors.',
  tags: ['a2a'],
  scopes: ['runs:write'],
  bucket: A2A_CALL_BUCKETS,
  body: a2aJsonRpcRequestSchema,
  bodyRefusals: ['payload_too_large'],
  responses: {
    200: {
      description:
        'A JSON-RPC response; for message/stream a `text/event-stream` of them, one per `data:` frame.',
      contentType: ['application/json', 'text/event-stream'],
      body: a2aJsonRpcResponseSchema,
    },
  },
};
