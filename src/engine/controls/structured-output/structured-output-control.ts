import { ControlFailure } from '../../../domain/control-errors.ts';
import { isJsonObject } from '../../../domain/json-object.ts';
import type { OutputSchemaSetting } from '../../../domain/run-controls.ts';
import type { StructuredOutputReport } from '../../../domain/run-events.ts';
import type { RunSpec } from '../../../domain/run-spec.ts';
import type { TerminalFieldsContribution } from '../../../domain/terminal-fields.ts';
import type { SchemaValidator, SchemaViolation } from '../../ports.ts';
import type {
  ContinueWith,
  FinalAnswer,
  HostTool,
  InterceptedResult,
  RunControl,
  ToolCallContext,
  TurnAdjustments,
} from '../../loop/run-control.ts';
import type { RefusalAnswer, RefusedCall, RunStart } from '../../loop/run-start.ts';
import { answerTools } from './answer-tools.ts';
import { enforcementPathFor, SYNTHETIC_TOOLS, type EnforcementPath } from './enforcement-path.ts';
import {
  callAloneText,
  callAnswerToolMessage,
  describeViolations,
  fixReplyMessage,
  insistOnAnswerToolMessage,
} from './output-prompts.ts';
import { carriesSchema, isSchemaRejection, withoutSchema } from './schema-refusal.ts';

/** Corrections asked for per run (a reply off the schema, or one that bypassed the tool), at most. */
export const MAX_CORRECTIONS = 1;

/** The control's state, as kept with the run's checkpoint. */
export interface StructuredOutputState {
  /** best_effort: a provider refused the schema, and every later call goes without it. */
  fellBack: boolean;
  /** The next turns force the synthetic tool (the model answered in text). */
  finishing: boolean;
  corrections: number;
  /** The arguments of the last synthetic-tool call that broke the schema, as JSON. */
  offSchemaCall: string | null;
  /** The synthetic tool's arguments, as JSON: the run ends with them at its next turn. */
  captured: string | null;
  /** Whether the final reply was enforced: a native-schema reply that conforms, or a captured answer. */
  enforced: boolean;
}

/**
 * The spec's `outputSchema` control, or undefined when the run asks for no schema. The model's
 * protocol decides how the schema is enforced (`enforcementPathFor`); every final reply is
 * validated, and one correction is asked for before `strict` fails the run and `best_effort`
 * accepts the reply as not enforced. Under `best_effort` a provider that refuses the schema gets
 * the call again without it, and the run goes on unconstrained.
 */
export function structuredOutputControl(
  spec: Pick<RunSpec, 'outputSchema' | 'plan'>,
): StructuredOutputControl | undefined {
  const planOnly = isJsonObject(spec.plan) && spec.plan.planOnly === true;
  return spec.outputSchema && new StructuredOutputControl(spec.outputSchema, planOnly);
}

export class StructuredOutputControl implements RunControl {
  readonly name = 'structured_output';
  readonly hostTools: readonly HostTool[];
  readonly #setting: OutputSchemaSetting;
  readonly #planOnly: boolean;
  #path: EnforcementPath = { mechanism: 'none' };
  #describedModel = 'the model';
  #validator: SchemaValidator | undefined;
  /** The run offers tools besides the synthetic ones (else every turn is a finishing turn). */
  #offersTools = false;
  #state: StructuredOutputState = {
    fellBack: false,
    finishing: false,
    corrections: 0,
    offSchemaCall: null,
    captured: null,
    enforced: false,
  };

  constructor(setting: OutputSchemaSetting, planOnly = false) {
    this.#setting = setting;
    this.#planOnly = planOnly;
    this.hostTools = answerTools(setting.schema, (args) => {
      this.#state.captured = JSON.stringify(args);
      this.#state.offSchemaCall = null;
      this.#state.enforced = true;
    });
  }

  get #strict(): boolean {
    return this.#setting.enforcement === 'strict';
  }

  get #syntheticTool() {
    return this.#path.mechanism === 'synthetic_tool' ? this.#path.tool : undefined;
  }

  start({ model, validator, tools }: RunStart): void {
    // At the start, not the first turn: a plan-only run drafts its plan on its first turn, and that
    // plan must not be paid for when the run cannot end with it.
    if (this.#strict && this.#planOnly) {
      throw new ControlFailure(
        'structured_output_not_supported',
        'a plan-only run ends with its plan: strict outputSchema enforcement is not supported with it',
      );
    }
    this.#validator = validator;
    this.#offersTools = tools.some((name) => !(SYNTHETIC_TOOLS as readonly string[]).includes(name));
    this.#path = enforcementPathFor(model, this.#offersTools);
    this.#describedModel = `the model ${model.id} (${model.api})`;
  }

  beforeTurn(): TurnAdjustments | undefined {
    if (this.#state.captured !== null) return { finishWith: this.#state.captured };
    if (this.#strict && this.#path.mechanism === 'none') {
      throw new ControlFailure(
        'structured_output_not_supported',
        `${this.#describedModel} has no way to enforce an output schema; use enforcement best_effort or another model`,
      );
    }
    if (this.#state.fellBack) return undefined;
    const path = this.#path;
    if (path.mechanism === 'none') return undefined;
    if (path.mechanism === 'native_schema') {
      return { responseFormat: { name: this.#setting.name, schema: this.#setting.schema } };
    }
    const offSchema = this.#state.offSchemaCall;
    if (offSchema !== null) {
      // The round answered the call with its violations; the model gets one more forced turn.
      this.#state.offSchemaCall = null;
      if (!this.#mayCorrect()) return { finishWith: this.#unenforced(offSchema, 'the answer') };
      this.#state.finishing = true;
    }
    // Without other tools every turn is a finishing turn.
    if (!this.#offersTools) this.#state.finishing = true;
    const tool = path.tool;
    return this.#state.finishing
      ? { offerHostTools: [tool], forceTool: tool, disableTools: true }
      : { offerHostTools: [tool] };
  }

  beforeToolCall({ call, round, tool }: ToolCallContext): InterceptedResult | undefined {
    if (!tool || !this.hostTools.includes(tool as HostTool)) return undefined;
    const name = this.#syntheticTool;
    if (name === undefined) return undefined;
    if (round.some((other) => other.name !== call.name)) {
      return { output: { type: 'error-text', value: callAloneText(name) } };
    }
    // The round answers an off-schema call with its violations; the next turn decides what follows.
    if (!isJsonObject(call.input) || this.#violations(call.input).length > 0) {
      this.#state.offSchemaCall = JSON.stringify(call.input ?? null);
    }
    return undefined;
  }

  beforeFinish({ text }: FinalAnswer): 'accept' | ContinueWith {
    const tool = this.#syntheticTool;
    if (tool !== undefined && !this.#state.fellBack) {
      // A text answer bypassed the tool: the finishing turn forces it, once more with insistence.
      if (!this.#state.finishing) {
        this.#state.finishing = true;
        return { continueWith: [callAnswerToolMessage(tool)] };
      }
      if (this.#mayCorrect()) return { continueWith: [insistOnAnswerToolMessage(tool)] };
      this.#unenforced(text, `a reply that did not call ${tool}`);
      return 'accept';
    }
    const violations = this.#violations(parsedReply(text));
    if (violations.length === 0) {
      this.#state.enforced = this.#path.mechanism === 'native_schema' && !this.#state.fellBack;
      return 'accept';
    }
    if (this.#mayCorrect()) {
      const unconstrained = this.#path.mechanism === 'none' || this.#state.fellBack;
      return {
        continueWith: [fixReplyMessage(violations, unconstrained ? this.#setting.schema : undefined)],
      };
    }
    this.#unenforced(text, `the final reply (${describeViolations(violations)})`);
    return 'accept';
  }

  onCallRefused({ call, failure }: RefusedCall): RefusalAnswer | undefined {
    if (this.#path.mechanism === 'none' || this.#state.fellBack) return undefined;
    const tool = this.#syntheticTool;
    if (!carriesSchema(call, tool) || !isSchemaRejection(failure)) return undefined;
    if (this.#strict) {
      const { apiStatus, apiCode } = failure;
      return {
        failWith: new ControlFailure('structured_output_schema_rejected', failure.message, {
          ...(apiStatus !== undefined && { apiStatus }),
          ...(apiCode !== undefined && { apiCode }),
        }),
      };
    }
    // Remembered for the rest of the run: the provider would refuse the schema again.
    this.#state.fellBack = true;
    this.#state.finishing = false;
    return { retryWith: withoutSchema(call, tool) };
  }

  /** The `structuredOutput` block on the run's `result` or `error`. */
  terminalFields(): TerminalFieldsContribution {
    const structuredOutput = this.structuredOutput();
    return { result: { structuredOutput }, error: { structuredOutput } };
  }

  structuredOutput(): StructuredOutputReport {
    const { fellBack, enforced } = this.#state;
    return {
      schemaRequested: true,
      schemaEnforced: enforced,
      // On a refusal the attempted mechanism; after an unconstrained fallback, none.
      enforcementMechanism: fellBack ? 'none' : this.#path.mechanism,
      unconstrainedFallbackOccurred: fellBack,
    };
  }

  snapshot(): StructuredOutputState {
    return { ...this.#state };
  }

  restore(state: unknown): void {
    if (isStructuredOutputState(state)) this.#state = { ...state };
  }

  /** Counts a correction if one is left. */
  #mayCorrect(): boolean {
    if (this.#state.corrections >= MAX_CORRECTIONS) return false;
    this.#state.corrections += 1;
    return true;
  }

  /** A reply the schema was not enforced on: `strict` fails the run, `best_effort` takes it as it is. */
  #unenforced(text: string, what: string): string {
    if (this.#strict) {
      throw new ControlFailure(
        'structured_output_not_enforced',
        `${what} does not follow the output schema, and strict enforcement allows no other`,
        { partialText: text },
      );
    }
    this.#state.enforced = false;
    return text;
  }

  #violations(value: unknown): SchemaViolation[] {
    if (value === NOT_JSON) return [{ path: '/', message: 'is not valid JSON' }];
    if (!this.#validator) return [];
    const outcome = this.#validator.validate(this.#setting.schema, value);
    return outcome.valid ? [] : outcome.violations;
  }
}

const NOT_JSON = Symbol('not JSON');

function parsedReply(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function isStructuredOutputState(value: unknown): value is StructuredOutputState {
  return (
    isJsonObject(value) &&
    typeof value.fellBack === 'boolean' &&
    typeof value.finishing === 'boolean' &&
    typeof value.corrections === 'number' &&
    (value.offSchemaCall === null || typeof value.offSchemaCall === 'string') &&
    (value.captured === null || typeof value.captured === 'string') &&
    typeof value.enforced === 'boolean'
  );
}
