const MAX_NAME_LENGTH = 64;

/**
 * Model-facing names for an MCP server's tools: every character outside `[a-zA-Z0-9_]` becomes
 * `_` and names are cut to 64 characters, as the service requires; two tools that would end up
 * with one name are told apart by a `_2`, `_3`… suffix (first come keeps the plain name).
 * Returns the model-facing name of each tool, in the order given.
 */
export function modelFacingToolNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const base = sanitized(name);
    let candidate = base;
    for (let suffix = 2; taken.has(candidate); suffix++) {
      const tail = `_${suffix}`;
      candidate = base.slice(0, MAX_NAME_LENGTH - tail.length) + tail;
    }
    taken.add(candidate);
    return candidate;
  });
}

function sanitized(name: string): string {
  const replaced = name.replace(/[^a-zA-Z0-9_]/g, '_').slice(0, MAX_NAME_LENGTH);
  return replaced === '' ? 'tool' : replaced;
}
