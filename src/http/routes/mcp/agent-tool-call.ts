import type { CallToolResult, ProgressToken } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Agent } from '../../../domain/agent.ts';
import { DomainError } from '../../../domain/errors.ts';
import type { Run } from '../../../domain/run.ts';
import { isServerToolKind, type ToolRef } from '../../../domain/tool-ref.ts';
import type { TraceOrigin } from '../../../domain/trace-context.ts';
import type { RunCredential } from '../../../engine/lifecycle/agent-access.ts';
import type { HostedAgents } from '../../../engine/lifecycle/hosted-agents.ts';
import type { RunService } from '../../../engine/lifecycle/run-service.ts';
import type { SessionService } from '../../../engine/lifecycle/session-service.ts';
import { CONTENT_MAX_CHARS, METADATA_VALUE_MAX_CHARS } from '../../schemas/limits.ts';
import { declaresObjectOutput } from './agent-tools.ts';
import { errorResult, RUN_ID_META, runToolResult } from './run-tool-result.ts';

/** Run metadata naming the MCP request a run answers, so `notifications/cancelled` finds it on any replica. */
export const MCP_SESSION_METADATA_KEY = 'mcp.sessionId';
export const MCP_REQUEST_METADATA_KEY = 'mcp.requestId';

const argumentsSchema = z.strictObject({
  message: z.string().min(1).max(CONTENT_MAX_CHARS),
  sessionId: z.string().min(1).max(METADATA_VALUE_MAX_CHARS).optional(),
});

export interface AgentToolCallDeps {
  runs: RunService;
  sessions: SessionService;
  hostedAgents: HostedAgents;
}

export interface AgentToolCall {
  credential: RunCredential;
  agent: Agent;
  arguments: Record<string, unknown> | undefined;
  /** The JSON-RPC id of the `tools/call` request and the `Mcp-Session-Id` it came with. */
  requestId: string | number;
  mcpSessionId: string | undefined;
  progressToken: ProgressToken | undefined;
  sendProgress: (params: {
    progressToken: ProgressToken;
    progress: number;
    message: string;
  }) => Promise<void>;
  caller: TraceOrigin | undefined;
  /** Aborted when the client goes away or the service stops: the call stops following (the run goes on). */
  signal: AbortSignal;
}

/**
 * `tools/call` of an agent tool: a durable one-shot run of the agent with `message` as the prompt
 * (with `sessionId`, a message run in that session of the same agent), followed to its end through
 * the run event follower and answered as the tool's result. What cannot start is a tool error, which
 * the calling model reads: bad arguments, an agent (or session) with client-resolved tools, an unknown
 * session, a busy one, a refusal of the run.
 */
export async function callAgentTool(deps: AgentToolCallDeps, call: AgentToolCall): Promise<CallToolResult> {
  const parsed = argumentsSchema.safeParse(call.arguments ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return errorResult(
      `invalid arguments: ${issue?.path.join('.') || 'arguments'}: ${issue?.message ?? 'invalid'} (expected { message: string, sessionId?: string })`,
    );
  }
  const clientKinds = clientResolvedKinds(call.agent.tools);
  if (clientKinds.length > 0) return clientToolsRefusal(`agent '${call.agent.slug}'`, clientKinds);
  let run: Run;
  try {
    const started = await startRun(deps, call, parsed.data);
    if ('refusal' in started) return started.refusal;
    run = started.run;
  } catch (error) {
    if (error instanceof DomainError) return errorResult(`${error.code}: ${error.message}`);
    throw error;
  }
  const token = call.progressToken;
  const result = await runToolResult(run.id, deps.hostedAgents.follow(run.id, call.signal), {
    objectOutput: declaresObjectOutput(call.agent),
    ...(token !== undefined && {
      onText: (text, streamedChars) =>
        call.sendProgress({ progressToken: token, progress: streamedChars, message: text }),
    }),
  }).catch((error: unknown) => {
    if (call.signal.aborted) return undefined;
    throw error;
  });
  return (
    result ??
    errorResult(`stopped following run ${run.id}: it goes on, see GET …/agent-runs/${run.id}`, {
      [RUN_ID_META]: run.id,
    })
  );
}

async function startRun(
  deps: AgentToolCallDeps,
  call: AgentToolCall,
  args: z.infer<typeof argumentsSchema>,
): Promise<{ run: Run } | { refusal: CallToolResult }> {
  const metadata = requestMetadata(call);
  if (args.sessionId === undefined) {
    const run = await deps.runs.create(
      call.credential,
      { agentId: call.agent.id, prompt: args.message, metadata },
      undefined,
      call.caller,
    );
    return { run };
  }
  const session = await deps.sessions.get(call.credential.workspaceId, args.sessionId);
  if (session.spec.agentId !== call.agent.id) {
    return {
      refusal: errorResult(
        `session '${args.sessionId}' is not a session of agent '${call.agent.slug}': call the tool of its agent`,
      ),
    };
  }
  const sessionKinds = clientResolvedKinds(session.spec.tools ?? []);
  if (sessionKinds.length > 0) {
    return { refusal: clientToolsRefusal(`session '${args.sessionId}'`, sessionKinds) };
  }
  const prompt = { prompt: args.message, metadata };
  return { run: await deps.sessions.message(call.credential, session.id, prompt, call.caller) };
}

/** The metadata that lets a cancellation find the run: only when both ids fit a metadata value. */
function requestMetadata(call: AgentToolCall): Record<string, string> {
  const requestId = String(call.requestId);
  const sessionId = call.mcpSessionId;
  if (sessionId === undefined || sessionId.length > METADATA_VALUE_MAX_CHARS) return {};
  if (requestId.length > METADATA_VALUE_MAX_CHARS) return {};
  return { [MCP_SESSION_METADATA_KEY]: sessionId, [MCP_REQUEST_METADATA_KEY]: requestId };
}

function clientResolvedKinds(tools: readonly ToolRef[]): string[] {
  return [...new Set(tools.filter((tool) => !isServerToolKind(tool.kind)).map((tool) => tool.kind))];
}

function clientToolsRefusal(what: string, kinds: readonly string[]): CallToolResult {
  return errorResult(
    `${what} uses client-resolved tools (${kinds.join(', ')}), which only a client of the run can answer: it cannot be called over MCP`,
  );
}
