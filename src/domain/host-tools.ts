/**
 * The controls' synthetic tools, served by the service itself: the output schema's answer tools and
 * the task plan's update tool. Their names are reserved (no declared tool may take one), so a call
 * naming one is always internal: the model sees it and its result, a client never does.
 */

/** The answer tool of a tool-call family (Anthropic). */
export const FINAL_REPORT = 'final_report';
/** The answer function of a provider that cannot combine a response schema with tools. */
export const SET_MODEL_RESPONSE = 'set_model_response';
/** The tool the agent keeps its task plan with. */
export const UPDATE_TASK_PLAN = 'update_task_plan';

export const HOST_TOOL_NAMES = [FINAL_REPORT, SET_MODEL_RESPONSE, UPDATE_TASK_PLAN] as const;

export type HostToolName = (typeof HOST_TOOL_NAMES)[number];

export function isHostToolName(name: string): name is HostToolName {
  return (HOST_TOOL_NAMES as readonly string[]).includes(name);
}

/** The calls of a model turn a client may be shown: all but the host tools'. */
export function clientVisibleCalls<Call extends { name: string }>(calls: readonly Call[]): Call[] {
  return calls.filter((call) => !isHostToolName(call.name));
}

/** Why a declared tool may not take a host tool's name (the `400` message of every place that declares one). */
export function reservedToolNameMessage(name: HostToolName): string {
  return `'${name}' is reserved for a tool the service provides itself (${HOST_TOOL_NAMES.join(', ')}); choose another name`;
}
