import type { HostTool } from '../../loop/run-control.ts';
import { SYNTHETIC_TOOLS, type SyntheticToolName } from './enforcement-path.ts';
import { ANSWER_RECORDED, answerToolDescription } from './output-prompts.ts';

/**
 * The synthetic tools a final answer goes through, both served (the run's model decides which is
 * offered). Their parameters are the output schema as given; the round validates a call's
 * arguments against it before `capture` sees them, so a captured answer conforms.
 */
export function answerTools(
  schema: Record<string, unknown>,
  capture: (args: Record<string, unknown>) => void,
): HostTool[] {
  return SYNTHETIC_TOOLS.map((name: SyntheticToolName) => ({
    name,
    description: answerToolDescription(name),
    inputSchema: schema,
    execute: (args) => {
      capture(args);
      return { type: 'text', value: ANSWER_RECORDED };
    },
  }));
}
