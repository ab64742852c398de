import type { ModelMessage } from 'ai';
import type { SchemaViolation } from '../../ports.ts';
import { FINAL_REPORT } from '../../../domain/host-tools.ts';
import type { SyntheticToolName } from './enforcement-path.ts';

/** What the model is told about each synthetic tool. */
export function answerToolDescription(tool: SyntheticToolName): string {
  return tool === FINAL_REPORT
    ? 'Submit your final answer. Call this once, when the task is done, with the complete answer as ' +
        'the arguments; it ends the conversation. Do not also write the answer as text.'
    : 'Set your final response using the required output schema. Use this tool to provide your ' +
        'final structured answer instead of outputting text directly.';
}

/** The synthetic tool's result: the model is not asked again after it. */
export const ANSWER_RECORDED = 'Final answer recorded.';

/** A synthetic-tool call made alongside other calls: it must come alone, once they are answered. */
export function callAloneText(tool: SyntheticToolName): string {
  return `${tool} was not recorded: call it on its own, once the results of your other tool calls are in.`;
}

/** The finishing turn after a text answer: the answer goes through the tool (tool choice forced). */
export function callAnswerToolMessage(tool: SyntheticToolName): ModelMessage {
  return user(
    `Now submit your final answer by calling the ${tool} tool, with the answer as its arguments ` +
      'following its schema. Do not answer in text.',
  );
}

/** The one correction after a text answer on the finishing turn (thinking models may not be forced). */
export function insistOnAnswerToolMessage(tool: SyntheticToolName): ModelMessage {
  return user(
    `Your reply was not recorded. The final answer is only accepted through the ${tool} tool: ` +
      `call ${tool} now with the complete answer as its arguments. Reply with nothing else.`,
  );
}

/**
 * The one correction of a final reply off the schema. A run whose calls go without the schema
 * (no enforcement path, or after a provider refused it) is shown the schema itself.
 */
export function fixReplyMessage(
  violations: readonly SchemaViolation[],
  schemaToShow: Record<string, unknown> | undefined,
): ModelMessage {
  const shown = schemaToShow === undefined ? '' : ` The schema: ${JSON.stringify(schemaToShow)}`;
  return user(
    `Your final reply does not match the required JSON schema (${describeViolations(violations)}). ` +
      `Reply again with only the JSON value, corrected, and no other text.${shown}`,
  );
}

export function describeViolations(violations: readonly SchemaViolation[]): string {
  return violations
    .slice(0, 5)
    .map(({ path, message }) => `${path} ${message}`)
    .join('; ');
}

function user(content: string): ModelMessage {
  return { role: 'user', content };
}
