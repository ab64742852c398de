import type { BatchOutcome, ExecutableCallOf, RoundContext, ToolExecutor } from './tool-executor.ts';

/**
 * Calls to the controls' synthetic tools (`update_task_plan`, `final_report`,
 * `set_model_response`): executed in-process by the control that serves them,
 * never published to the client.
 */
export const hostToolExecutor: ToolExecutor<'host'> = {
  async execute(batch: readonly ExecutableCallOf<'host'>[], round: RoundContext): Promise<BatchOutcome> {
    return {
      kind: 'done',
      results: batch.map(({ call, tool, args }) => ({
        toolUseId: call.id,
        output: tool.execute(args, { turn: round.turn, emit: round.emit }),
      })),
    };
  },
};
