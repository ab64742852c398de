import type { ModelMessage } from 'ai';

/** The user message a `redirect` verdict puts before the agent's next turn. */
export function redirectMessage(redirect: string): ModelMessage {
  return {
    role: 'user',
    content: `A supervisor reviewing this run asks you to change course: ${redirect}`,
  };
}

/** The user message of the tools-disabled turn a `finalize` verdict forces. */
export const FINALIZE_MESSAGE: ModelMessage = {
  role: 'user',
  content:
    'A supervisor reviewing this run has decided it is time to finish: do not call any more tools, ' +
    'and give your final answer now from what you have found so far.',
};
