/** What the log already shows of a run's pending tool round after its last checkpoint. */
export interface LoggedRound {
  /** Calls whose `local_tool_call` or `tool_call` is already in the log: never published (or executed) again. */
  published: ReadonlySet<string>;
  /** Answers whose `local_tool_result_in` is already in the log. */
  echoed: ReadonlySet<string>;
  /** Observability events of the round already logged (`eventKey`): not emitted twice. */
  announced: ReadonlySet<string>;
}
