import type { SupervisorSetting } from '../../../domain/run-controls.ts';
import type { RunControl } from '../../loop/run-control.ts';
import type { ControlRunContext } from '../control-context.ts';
import { supervisor } from './supervisor-control.ts';
import { supervisorConfigOf } from './supervisor-setting.ts';

/**
 * The supervisor a run's spec asks for, if any, judged by the spec's `modelId` in the run's
 * workspace, else the workspace default model: the catalog has no default supervisor model of its
 * own. Without a run context (drivers of other controls in tests) there is no judge to call, and so
 * no supervisor.
 */
export function supervisorControls(
  setting: SupervisorSetting | undefined,
  context: ControlRunContext | undefined,
): RunControl[] {
  const config = supervisorConfigOf(setting);
  if (!config || !context) return [];
  return [
    supervisor(config, {
      resolveJudge: () => context.judges.judgeFor(context.workspaceId, config.modelId),
      signal: context.signal,
      logger: context.logger,
    }),
  ];
}
