import { TERMINAL_EVENT_TYPES, type LocalToolCall, type RunEventLike } from './local-tool-call.ts';
import type { PendingCallsReader } from './pending-calls.ts';
import {
  RunToolSession,
  type CallExecutor,
  type CallReport,
  type RunToolSessionOptions,
} from './run-tool-session.ts';
import { answerOfError, answerOfValue, type ToolAnswer } from './tool-answer.ts';
import type { LocalToolContext, ToolBridge } from './tool-bridge.ts';
import { assertToolName, type ClientToolRef, type LocalToolRef } from './tool-refs.ts';

/**
 * A `local` tool's implementation: its return value becomes the result, a throw the error. `Args`
 * is the shape `parameters` declares (the service validates the arguments against it first).
 */
export type LocalToolHandler<Args extends object = Record<string, unknown>> = (
  args: Args,
  context: LocalToolContext,
) => unknown;

/** The ref fields of a `local` tool besides its name. */
export type LocalToolOptions = Omit<LocalToolRef, 'kind' | 'name'>;

/** The part of the client a dispatcher reads runs with (`AgentRunsClient` has it). */
export interface RunEventSource {
  runs: {
    stream(runId: string, options?: { lastSeq?: number; signal?: AbortSignal }): AsyncIterable<RunEventLike>;
  };
}

export type DispatcherClient = PendingCallsReader & RunEventSource;

export interface LocalToolDispatcherOptions {
  /** Told how every call ended (posted, answered elsewhere, run ended, stopped, failed). */
  onCallSettled?: (report: CallReport) => void;
}

export type OpenOptions = Omit<RunToolSessionOptions, 'onCallSettled'>;

export interface AttachResult {
  /** The run's terminal event (`result`, `error` or `cancelled`); absent when stopped before it. */
  terminal: RunEventLike | undefined;
  /** How each call this attachment saw ended, in the order they settled. */
  calls: CallReport[];
}

interface RegisteredLocalTool {
  ref: LocalToolRef;
  handler: LocalToolHandler;
}

/**
 * The client's tools for runs: `local` handlers registered by name and bridges serving
 * `mcp_local` and `a2a_local` refs. `toolRefs()` gives what to declare in the spec's `tools`;
 * `attach()` (or `open()` for a caller that reads the stream itself) answers the run's
 * `local_tool_call` events, routed by `kind`, with exactly one result per `toolUseId`.
 */
export class LocalToolDispatcher {
  readonly #locals = new Map<string, RegisteredLocalTool>();
  readonly #bridges: ToolBridge[] = [];
  readonly #options: LocalToolDispatcherOptions;
  readonly #executor: CallExecutor = {
    execute: (call, context) => this.#execute(call, context),
    isReadOnly: (call) => call.kind === 'local' && this.#locals.get(call.name)?.ref.readOnly === true,
  };

  constructor(options: LocalToolDispatcherOptions = {}) {
    this.#options = options;
  }

  /** Registers a `local` tool and returns its ref (also listed by `toolRefs()`). */
  local<Args extends object = Record<string, unknown>>(
    name: string,
    handler: LocalToolHandler<Args>,
    options: LocalToolOptions = {},
  ): LocalToolRef {
    assertToolName(name, 'local tool name');
    this.#assertFree(name);
    const ref: LocalToolRef = { kind: 'local', name, ...options };
    this.#locals.set(name, { ref, handler: handler as LocalToolHandler });
    return ref;
  }

  /** Adds a (connected) MCP or A2A bridge and returns its ref (also listed by `toolRefs()`). */
  bridge(bridge: ToolBridge): ClientToolRef {
    const ref = bridge.toolRef();
    if (this.#bridges.some((other) => other.kind === bridge.kind && other.name === bridge.name)) {
      throw new TypeError(`a ${bridge.kind} bridge named '${bridge.name}' is already added`);
    }
    for (const name of modelFacingNames(ref)) this.#assertFree(name);
    this.#bridges.push(bridge);
    return ref;
  }

  /** Every ref to declare in the run's (or session's) `tools`, local tools first. */
  toolRefs(): ClientToolRef[] {
    return [...[...this.#locals.values()].map((tool) => tool.ref), ...this.#bridges.map((b) => b.toolRef())];
  }

  /**
   * A session for one run whose stream the caller reads: feed it every event in order with
   * `handle(event)`, and `close()` it when done.
   */
  open(client: PendingCallsReader, runId: string, options: OpenOptions = {}): RunToolSession {
    return new RunToolSession(client, runId, this.#executor, {
      ...options,
      ...(this.#options.onCallSettled && { onCallSettled: this.#options.onCallSettled }),
    });
  }

  /**
   * Reads the run from its first event to its terminal event and answers its pending calls; after
   * a client restart this is how handlers are rebound to a run in progress. Resolves with the
   * terminal event (and without one when `signal` stopped it first).
   */
  async attach(client: DispatcherClient, runId: string, options: OpenOptions = {}): Promise<AttachResult> {
    const calls: CallReport[] = [];
    const session = new RunToolSession(client, runId, this.#executor, {
      ...options,
      onCallSettled: (report) => {
        calls.push(report);
        this.#options.onCallSettled?.(report);
      },
    });
    let terminal: RunEventLike | undefined;
    try {
      const stream = client.runs.stream(runId, options.signal ? { signal: options.signal } : {});
      for await (const event of stream) {
        session.handle(event);
        if (TERMINAL_EVENT_TYPES.has(event.type)) {
          terminal = event;
          break;
        }
      }
    } catch (error) {
      if (!options.signal?.aborted) {
        await session.close();
        throw error;
      }
    }
    await session.close();
    return { terminal, calls };
  }

  /** Closes every bridge (an MCP bridge over stdio stops its server process). */
  async close(): Promise<void> {
    await Promise.allSettled(this.#bridges.map((bridge) => bridge.close()));
  }

  async #execute(call: LocalToolCall, context: LocalToolContext): Promise<ToolAnswer> {
    if (call.kind === 'local') {
      const tool = this.#locals.get(call.name);
      if (tool === undefined)
        return { error: `this client has no handler for the local tool '${call.name}'` };
      try {
        return answerOfValue(await tool.handler(call.args, context));
      } catch (error) {
        return answerOfError(error);
      }
    }
    const bridge = this.#bridgeFor(call);
    if (bridge === undefined) {
      const label = call.kind === 'mcp_local' ? `MCP server '${call.mcpServer ?? '?'}'` : `A2A agent`;
      return { error: `this client has no bridge for the ${label} of tool '${call.name}'` };
    }
    try {
      return await bridge.call(call, context);
    } catch (error) {
      return answerOfError(error);
    }
  }

  /** The bridge named by the call (`mcpServer`, or the A2A tool name), else one that says it serves it. */
  #bridgeFor(call: LocalToolCall): ToolBridge | undefined {
    const label = call.kind === 'mcp_local' ? call.mcpServer : call.name;
    const ofKind = this.#bridges.filter((bridge) => bridge.kind === call.kind);
    return ofKind.find((bridge) => bridge.name === label) ?? ofKind.find((bridge) => bridge.serves(call));
  }

  #assertFree(name: string): void {
    const taken =
      this.#locals.has(name) ||
      this.#bridges.some((bridge) => modelFacingNames(bridge.toolRef()).includes(name));
    if (taken)
      throw new TypeError(`a tool named '${name}' is already registered: the service would refuse both`);
  }
}

function modelFacingNames(ref: ClientToolRef): string[] {
  return ref.kind === 'mcp_local' ? ref.tools.map((tool) => tool.name) : [ref.name];
}
