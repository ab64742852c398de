import {
  defaultFinishReason,
  startScriptedServer,
  type FakeProviderServer,
  type NeutralFinishReason,
  type RecordedRequest,
  type ScriptedReply,
  type ScriptedTurn,
  type ScriptedUsage,
  type SseEvent,
  type WireFormat,
} from './scripted-reply.ts';

export interface FakeGoogleOptions {
  /**
   * Send `functionCall.id` (the scripted call's id). Gemini 3 returns ids; older models do not, and
   * then `@ai-sdk/google` makes one up. Default true.
   */
  functionCallIds?: boolean;
}

/**
 * A fake Gemini API server (`@ai-sdk/google`, `createGoogleGenerativeAI({ baseURL })`): the
 * handle's `url` ends in `/v1beta`, and the SDK posts to
 * `{url}/models/{model}:streamGenerateContent?alt=sse` (streaming) or
 * `{url}/models/{model}:generateContent`, with the key in `x-goog-api-key`.
 *
 * A streamed turn is a sequence of SSE `data:` lines, each a whole `GenerateContentResponse`:
 * thought parts (`{ text, thought: true }`), then text parts, then one `functionCall` part per tool
 * call (complete `args`, as Gemini sends them), and a last chunk with `finishReason` (`STOP`,
 * including for tool calls; `MAX_TOKENS`; `SAFETY` for a refusal) and `usageMetadata`. When the
 * turn has thinking, the `thoughtSignature` (the turn's `thinkingSignature`, else a fixed fake
 * value) rides on the first `functionCall` part, else on the last text part, as Gemini 2.5 does.
 * Errors are Google's `{ error: { code, message, status } }` with the matching HTTP status.
 */
export async function startFakeGoogle(
  script: ScriptedReply[] = [],
  options: FakeGoogleOptions = {},
): Promise<FakeProviderServer> {
  // The scripted server serves one fixed endpoint and hands the format only the body; Gemini puts
  // the model and the method in the path. The request being handled is always the last one
  // recorded when `endpoint` is read (it is read synchronously right after recording), and the
  // format methods find their request by the identity of the parsed body.
  let requests: readonly RecordedRequest[] = [];
  const requestOf = (body: Record<string, unknown>) => requests.findLast((entry) => entry.body === body);
  const wire = googleWire(
    () => requests.at(-1),
    (body) => routeOf(requestOf(body)),
    options.functionCallIds ?? true,
  );
  const server = await startScriptedServer(wire, script);
  requests = server.requests;
  return { ...server, url: server.url.replace(/\/v1$/, '/v1beta') };
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)$/;
/** Any path that is not a Gemini model method: the scripted server then answers 404. */
const NO_ROUTE = '/v1beta/models/{model}:generateContent';

interface Route {
  model: string;
  stream: boolean;
}

function routeOf(request: RecordedRequest | undefined): Route | undefined {
  if (!request) return undefined;
  const url = new URL(request.path, 'http://x');
  const match = ROUTE.exec(url.pathname);
  if (!match) return undefined;
  // The SDK always asks for SSE; without alt=sse Gemini streams a JSON array instead.
  const stream = match[2] === 'streamGenerateContent';
  if (stream && url.searchParams.get('alt') !== 'sse') return undefined;
  return { model: match[1] ?? 'fake-model', stream };
}

const ERROR_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const FINISH_REASONS: Record<NeutralFinishReason, string> = {
  end_turn: 'STOP',
  tool_use: 'STOP', // Gemini has no tool-call reason: the SDK infers it from the functionCall parts
  max_tokens: 'MAX_TOKENS',
  refusal: 'SAFETY',
};

const DEFAULT_SIGNATURE = 'ZmFrZS10aG91Z2h0LXNpZ25hdHVyZQ=='; // base64, like Gemini's
let responseCounter = 0;

/** Gemini's promptTokenCount includes cached tokens; candidatesTokenCount excludes thoughts. */
function usageMetadata(usage: ScriptedUsage | undefined) {
  const { inputTokens = 0, outputTokens = 0, cachedTokens = 0, reasoningTokens = 0 } = usage ?? {};
  return {
    promptTokenCount: inputTokens,
    ...(cachedTokens > 0 && { cachedContentTokenCount: cachedTokens }),
    candidatesTokenCount: Math.max(0, outputTokens - reasoningTokens),
    ...(reasoningTokens > 0 && { thoughtsTokenCount: reasoningTokens }),
    totalTokenCount: inputTokens + outputTokens,
  };
}

const BLOCKED_SAFETY_RATINGS = [
  { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
  { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'NEGLIGIBLE' },
];

type Part = Record<string, unknown>;

/** The content parts of a turn, one per streamed chunk, signature placed as Gemini places it. */
function turnParts(turn: ScriptedTurn, functionCallIds: boolean): Part[] {
  const thoughts: Part[] = (turn.thinking ?? []).map((text) => ({ text, thought: true }));
  const texts: Part[] = (turn.text ?? []).map((text) => ({ text }));
  const calls: Part[] = (turn.toolCalls ?? []).map((call) => ({
    functionCall: { ...(functionCallIds && { id: call.id }), name: call.name, args: call.input },
  }));
  if (turn.thinking !== undefined) {
    const signature = turn.thinkingSignature ?? DEFAULT_SIGNATURE;
    const carrier = calls[0] ?? texts.at(-1);
    if (carrier) carrier.thoughtSignature = signature;
    else thoughts.push({ text: '', thought: true, thoughtSignature: signature });
  }
  return [...thoughts, ...texts, ...calls];
}

/** Merges consecutive parts of the same kind, as a non-streamed response holds them. */
function mergedParts(parts: Part[]): Part[] {
  const merged: Part[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    const isText = typeof part.text === 'string';
    if (last && isText && typeof last.text === 'string' && last.thought === part.thought) {
      last.text = `${last.text}${part.text as string}`;
      if (part.thoughtSignature !== undefined) last.thoughtSignature = part.thoughtSignature;
    } else {
      merged.push({ ...part });
    }
  }
  return merged;
}

function candidate(parts: Part[] | undefined, finishReason?: string) {
  return {
    ...(parts !== undefined && { content: { parts, role: 'model' } }),
    ...(finishReason !== undefined && { finishReason }),
    ...(finishReason === 'SAFETY' && { safetyRatings: BLOCKED_SAFETY_RATINGS }),
    index: 0,
  };
}

function googleWire(
  current: () => RecordedRequest | undefined,
  route: (body: Record<string, unknown>) => Route | undefined,
  functionCallIds: boolean,
): WireFormat {
  const response = (body: Record<string, unknown>, id: string, extra: Record<string, unknown>) => ({
    ...extra,
    modelVersion: route(body)?.model ?? 'fake-model',
    responseId: id,
  });
  const responseId = () => `fake-google-${(++responseCounter).toString(16).padStart(8, '0')}`;

  return {
    get endpoint() {
      const request = current();
      return routeOf(request) ? new URL(request?.path ?? '', 'http://x').pathname : NO_ROUTE;
    },

    wantsStream: (body) => route(body)?.stream ?? false,

    streamEvents(turn, body) {
      const id = responseId();
      const finishReason = FINISH_REASONS[defaultFinishReason(turn)];
      const parts = turnParts(turn, functionCallIds);
      const usage = usageMetadata(turn.usage);
      const events: SseEvent[] = parts.map((part) => ({
        data: response(body, id, {
          candidates: [candidate([part])],
          // Gemini repeats the prompt count on every chunk; the final one carries the totals.
          usageMetadata: {
            promptTokenCount: usage.promptTokenCount,
            totalTokenCount: usage.promptTokenCount,
          },
        }),
      }));
      // The last chunk: finish reason and usage (an empty candidate content, as Gemini often sends).
      events.push({
        data: response(body, id, {
          candidates: [candidate(finishReason === 'SAFETY' ? undefined : [{ text: '' }], finishReason)],
          usageMetadata: usage,
        }),
      });
      return events;
    },

    jsonResponse(turn, body) {
      const finishReason = FINISH_REASONS[defaultFinishReason(turn)];
      const parts = mergedParts(turnParts(turn, functionCallIds));
      return response(body, responseId(), {
        candidates: [candidate(parts.length > 0 ? parts : undefined, finishReason)],
        usageMetadata: usageMetadata(turn.usage),
      });
    },

    errorBody(status, message) {
      return {
        error: {
          code: status,
          message,
          status: ERROR_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'UNKNOWN'),
        },
      };
    },
  };
}
