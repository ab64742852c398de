import type { Agent } from '../../domain/agent.ts';
import { InvalidModelError, type ModelCandidate } from '../../domain/errors.ts';
import type { ResolvedModel } from '../../domain/model.ts';
import { normalizeReasoningLevel, reasoningEffortLabel } from '../../domain/reasoning-level.ts';
import type { SupervisorSetting } from '../../domain/run-controls.ts';
import {
  DEFAULT_LOCAL_TOOL_TIMEOUT_MS,
  type RunModel,
  type RunRequest,
  type RunSpec,
  type SessionHistoryRef,
} from '../../domain/run-spec.ts';
import type { ToolRef } from '../../domain/tool-ref.ts';
import type { ModelResolver, ToolCatalog } from '../ports.ts';

/** What a run's spec is resolved against at creation. */
export interface RunSpecSources {
  resolver: ModelResolver;
  toolCatalog: ToolCatalog;
}

/**
 * What a run executes, resolved at creation from the request and, for
 * `agentId` runs, the persisted agent: the stored prompt wins over an inline
 * one; the model is the request's, else the agent's configured one, else the
 * workspace default; the reasoning level is the request's, else the agent's,
 * else off; the agent's tools come first and the request's are merged on top; the request's
 * `outputSchema` wins over the agent's.
 */
export async function buildRunSpec(
  sources: RunSpecSources,
  workspaceId: string,
  request: RunRequest,
  agent: Agent | undefined,
  history?: SessionHistoryRef,
): Promise<RunSpec> {
  const modelId =
    request.modelId ?? (agent && !agent.useWorkspaceDefaultModel ? (agent.modelId ?? undefined) : undefined);
  const resolved = await sources.resolver.resolve(workspaceId, modelId);
  await checkJudgeModel(sources.resolver, workspaceId, request.supervisor);
  const level = request.reasoningLevel ?? agent?.reasoningLevel ?? undefined;
  const reasoningLevel = level === undefined ? null : normalizeReasoningLevel(level);
  const tools = mergeTools(agent?.tools ?? [], request.tools ?? []);
  // Fails now (400) rather than in the worker when refs collide or name a tool that does not exist.
  await sources.toolCatalog.check(workspaceId, tools);
  const outputSchema = request.outputSchema ?? agent?.outputSchema ?? undefined;
  return {
    ...request,
    ...(outputSchema && { outputSchema }),
    effective: {
      systemPrompt: agent?.systemPrompt ?? request.systemPrompt ?? '',
      model: runModelOf(resolved),
      reasoningLevel,
      reasoningEffort:
        reasoningLevel !== null && resolved.reasoningControl ? reasoningEffortLabel(reasoningLevel) : null,
      tools,
      localToolTimeoutMs: request.localToolTimeoutMs ?? DEFAULT_LOCAL_TOOL_TIMEOUT_MS,
      ...(history && { sessionHistory: history }),
    },
  };
}

/**
 * A judge model the spec names must resolve now, as `modelId` does (`400 invalid_model`), rather
 * than make every review of the run fail. The worker resolves it again when the run starts.
 */
async function checkJudgeModel(
  resolver: ModelResolver,
  workspaceId: string,
  supervisor: SupervisorSetting | undefined,
): Promise<void> {
  if (typeof supervisor !== 'object' || supervisor.modelId === undefined) return;
  try {
    await resolver.resolve(workspaceId, supervisor.modelId);
  } catch (error) {
    if (!(error instanceof InvalidModelError)) throw error;
    const candidates = error.details.candidates as ModelCandidate[] | undefined;
    throw new InvalidModelError(`supervisor.modelId: ${error.message}`, candidates);
  }
}

/** The reference the worker resolves again: the row plus, for workspace providers, the vendor model. */
export function runModelOf(resolved: ResolvedModel): RunModel {
  const ref = resolved.connectionRef.startsWith('provider:')
    ? `${resolved.connectionRef}:${resolved.vendorModelId}`
    : resolved.connectionRef;
  return { ref, id: resolved.id, provider: resolved.provider, vendorModelId: resolved.vendorModelId };
}

/**
 * The agent's (or session's) tools with the request's on top: a request ref replaces the one it
 * names. An `mcp_local` name is a server label, not a tool name, so it only matches another
 * `mcp_local` server (a refreshed catalog); other named refs match by tool name.
 */
export function mergeTools(agentTools: readonly ToolRef[], requestTools: readonly ToolRef[]): ToolRef[] {
  const key = (ref: ToolRef) => {
    if (ref.kind === 'svc') return `svc:${ref.id}`;
    return ref.kind === 'mcp_local' ? `mcp_local:${ref.name}` : `name:${ref.name}`;
  };
  const overridden = new Set(requestTools.map(key));
  return [...agentTools.filter((ref) => !overridden.has(key(ref))), ...requestTools];
}
