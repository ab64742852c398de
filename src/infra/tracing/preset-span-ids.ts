import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace';

/** The ids a span gets when it is reported later with ids chosen earlier (a run's `invoke_agent` span). */
export interface PresetIds {
  spanId: string;
  /** Taken only by a span without a parent (a parent gives its own trace id). */
  traceId: string;
}

/**
 * The tracer provider's id generator: random ids, except for the one span started inside `preset`,
 * which gets the given ids. The SDK asks for them synchronously in `startSpan`, each at most once,
 * so no other span can take them.
 */
export class PresetSpanIds implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #spanId: string | undefined;
  #traceId: string | undefined;

  preset<T>(ids: PresetIds, start: () => T): T {
    this.#spanId = ids.spanId;
    this.#traceId = ids.traceId;
    try {
      return start();
    } finally {
      this.#spanId = undefined;
      this.#traceId = undefined;
    }
  }

  generateTraceId(): string {
    const preset = this.#traceId;
    this.#traceId = undefined;
    return preset ?? this.#random.generateTraceId();
  }

  generateSpanId(): string {
    const preset = this.#spanId;
    this.#spanId = undefined;
    return preset ?? this.#random.generateSpanId();
  }
}
