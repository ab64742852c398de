import type { ClientToolResult } from '../../domain/tool-call.ts';
import type { RunTool, SchemaValidator, SchemaViolation } from '../ports.ts';
import type { ToolOutput as Output } from '../loop/run-control.ts';

/**
 * What the model receives for a client's answer: the result text (with any
 * files as native file parts), or the error as a tool error. A result that
 * breaks the tool's `outputSchema` is returned as a structured error the
 * model can act on.
 */
export function clientResultOutput(
  tool: RunTool | undefined,
  answer: ClientToolResult,
  validator: SchemaValidator,
): Output {
  if ('error' in answer) return { type: 'error-text', value: answer.error };
  if (tool?.outputSchema) {
    const violations = outputViolations(tool.outputSchema, answer.result, validator);
    if (violations) {
      return {
        type: 'error-json',
        value: {
          error: 'tool_output_invalid',
          message: `the result of ${tool.name} does not match its outputSchema`,
          violations: violations.map((violation) => ({ ...violation })),
          output: answer.result,
        },
      };
    }
  }
  if (answer.files.length === 0) return { type: 'text', value: answer.result };
  return {
    type: 'content',
    value: [
      { type: 'text', text: answer.result },
      ...answer.files.map((file) => ({
        type: 'file' as const,
        data: { type: 'data' as const, data: file.data },
        mediaType: file.mimeType,
        filename: file.filename,
      })),
    ],
  };
}

function outputViolations(
  schema: Record<string, unknown>,
  result: string,
  validator: SchemaValidator,
): SchemaViolation[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(result);
  } catch {
    return [{ path: '/', message: 'must be JSON (the tool declares an outputSchema)' }];
  }
  const outcome = validator.validate(schema, value);
  return outcome.valid ? undefined : outcome.violations;
}

/** The structured result a model gets for arguments that break the tool's input schema. */
export function inputInvalidOutput(toolName: string, violations: readonly SchemaViolation[]): Output {
  return {
    type: 'error-json',
    value: {
      error: 'tool_input_invalid',
      message: `the arguments for ${toolName} do not match its input schema; fix them and call it again`,
      violations: violations.map((violation) => ({ ...violation })),
    },
  };
}

export function unknownToolOutput(toolName: string, available: readonly string[]): Output {
  return {
    type: 'error-text',
    value: `there is no tool named '${toolName}'; available tools: ${available.join(', ') || 'none'}`,
  };
}
