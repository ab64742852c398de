import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2 } from 're2-wasm';

/**
 * The regular expressions of user-supplied schemas (`pattern`, `patternProperties`) run on RE2,
 * whose matching time is linear in the input: a pattern such as `^(a+)+$` cannot stall the event
 * loop the way a backtracking engine does. RE2 has no lookaround or backreferences; a schema that
 * uses them does not compile (and is then not enforced, like any schema Ajv cannot compile).
 *
 * RE2 keeps each compiled pattern in WebAssembly memory that JavaScript's collector does not
 * reclaim, so each distinct pattern is compiled once per process and kept.
 */
const compiled = new Map<string, RE2>();

export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    // RE2 always matches in Unicode mode; Ajv asks for it by default anyway.
    const unicodeFlags = flags.includes('u') ? flags : `${flags}u`;
    const key = `${unicodeFlags}/${pattern}`;
    let regExp = compiled.get(key);
    if (!regExp) {
      regExp = new RE2(pattern, unicodeFlags);
      compiled.set(key, regExp);
    }
    return regExp;
  },
  { code: 'linearRegExp' },
);
