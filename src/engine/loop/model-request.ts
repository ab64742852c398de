import type { ModelMessage } from 'ai';
import type { ResolvedModel } from '../../domain/model.ts';
import type { ModelCall, ModelToolDefinition, RunTools } from '../ports.ts';
import type { ControlPipeline } from './control-pipeline.ts';
import type { TurnAdjustments } from './run-control.ts';

/** What every model call of a run shares. */
export interface RunModelSetup {
  model: ResolvedModel;
  instructions: string;
  /** The session's history and this run's input, before any turn. */
  input: readonly ModelMessage[];
  /** The declared tools as the model sees them. */
  tools: readonly ModelToolDefinition[];
  reasoningLevel: number | null;
}

export function modelToolDefinitions(tools: RunTools): ModelToolDefinition[] {
  return [...tools.values()].map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema,
  }));
}

export interface TurnRequest {
  call: ModelCall;
  /** Whether tool calls of the turn are executed (tool choice not `none`). */
  toolsCallable: boolean;
}

/**
 * The model call of one turn: the run's input and the conversation so far,
 * the declared tools plus the host tools the controls offer, and the tool
 * choice and response format they ask for. Tools stay declared on a
 * tools-disabled turn (tool choice `none`): earlier turns' calls refer to them.
 */
export function turnRequest(
  setup: RunModelSetup,
  history: readonly ModelMessage[],
  adjustments: TurnAdjustments,
  pipeline: ControlPipeline,
): TurnRequest {
  const hostTools = (adjustments.offerHostTools ?? []).flatMap((name) => {
    const tool = pipeline.hostTool(name);
    return tool ? [{ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }] : [];
  });
  const tools = hostTools.length > 0 ? [...setup.tools, ...hostTools] : setup.tools;
  const toolChoice =
    adjustments.forceTool !== undefined
      ? { toolName: adjustments.forceTool }
      : adjustments.disableTools
        ? ('none' as const)
        : ('auto' as const);
  const call: ModelCall = {
    model: setup.model,
    instructions: setup.instructions,
    messages: history.length === 0 ? [...setup.input] : [...setup.input, ...history],
    reasoningLevel: setup.reasoningLevel,
    ...(tools.length > 0 && { tools, toolChoice }),
    ...(adjustments.responseFormat && { responseFormat: adjustments.responseFormat }),
  };
  return { call, toolsCallable: tools.length > 0 && toolChoice !== 'none' };
}
