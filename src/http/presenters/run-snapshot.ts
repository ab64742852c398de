import type { Run } from '../../domain/run.ts';
import type { InputMessage, RunSpec } from '../../domain/run-spec.ts';
import type { RunControlsView } from '../../engine/lifecycle/run-controls-view.ts';
import type { PendingToolCall } from '../../engine/lifecycle/run-service.ts';

/**
 * `GET {ws}/agent-runs/{runId}`: status, final text, error, the spec, metadata,
 * the client tool calls still awaiting their answer (what a restarted client
 * answers), the cost triple (`tokens`, `turns`, `model`: null until the
 * terminal event is written) and, once known, the controls' `structuredOutput`
 * and `plan`. Inline attachment bytes are replaced by their size.
 */
export function runSnapshot(run: Run, pendingToolCalls: PendingToolCall[], controls: RunControlsView) {
  return {
    runId: run.id,
    status: run.status,
    agentId: run.agentId,
    sessionId: run.sessionId,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    endedAt: run.endedAt,
    cancelRequested: run.cancelRequestedAt !== null,
    spec: withoutAttachmentBytes(run.spec),
    metadata: run.metadata,
    finalText: run.finalText,
    error: run.error,
    ...(run.failureReason !== null && { failureReason: run.failureReason }),
    pendingToolCalls,
    tokens: run.tokens,
    turns: run.turns,
    model: run.model,
    ...(controls.structuredOutput && { structuredOutput: controls.structuredOutput }),
    ...(controls.plan && { plan: controls.plan }),
  };
}

function withoutAttachmentBytes(spec: RunSpec): RunSpec {
  if (!spec.messages) return spec;
  const messages = spec.messages.map((message): InputMessage => {
    if (!message.attachments) return message;
    return {
      ...message,
      attachments: message.attachments.map((attachment) =>
        attachment.type === 'input_file'
          ? { ...attachment, data: `[${Buffer.byteLength(attachment.data, 'base64')} bytes]` }
          : attachment,
      ),
    };
  });
  return { ...spec, messages };
}
