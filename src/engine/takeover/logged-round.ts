/** What the log already shows of a run's pending tool round after its last checkpoint. */
export interface LoggedRound {
  /** Calls whose published event (role `tool_call`) is already in the log: never published (or executed) again. */
  published: ReadonlySet<string>;
  /** Calls whose client answer (role `tool_answer`) is already in the log. */
  echoed: ReadonlySet<string>;
  /** Round events and announcements already logged (`eventKey`): not emitted twice. */
  announced: ReadonlySet<string>;
}
