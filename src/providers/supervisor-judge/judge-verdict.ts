import type { JudgeVerdict } from '../../engine/ports.ts';

const MAX_TEXT = 2_000;

const ACTIONS: Readonly<Record<string, JudgeVerdict['action']>> = {
  on_track: 'on_track',
  ontrack: 'on_track',
  continue: 'on_track',
  redirect: 'redirect',
  finalize: 'finalize',
  finalise: 'finalize',
};

/**
 * The verdict in a judge's reply, read leniently: the first JSON object in the text (inside a code
 * fence or prose too), its action in any case and with `-` or spaces for `_`; a redirect without its
 * own text steers with the reason. Null when there is no such object or it names no known action,
 * or a redirect has nothing to say.
 */
export function parseVerdict(reply: string): JudgeVerdict | null {
  const object = firstJsonObject(reply);
  if (!object) return null;
  const key =
    typeof object.action === 'string'
      ? object.action
          .trim()
          .toLowerCase()
          .replace(/[\s-]+/g, '_')
      : '';
  const action = ACTIONS[key] ?? ACTIONS[key.replace(/_/g, '')];
  if (!action) return null;
  const reason = textOf(object.reason);
  if (action !== 'redirect') return { action, reason };
  const redirect = textOf(object.redirect) || reason;
  return redirect === '' ? null : { action, reason, redirect };
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value.trim().slice(0, MAX_TEXT) : '';
}

/** The first balanced `{…}` of the text that parses as a JSON object. */
export function firstJsonObject(text: string): Record<string, unknown> | null {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start);
    if (end === -1) continue;
    try {
      const parsed: unknown = JSON.parse(text.slice(start, end + 1));
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        return parsed as Record<string, unknown>;
      }
    } catch {
      // Not JSON from here: try the next brace.
    }
  }
  return null;
}

/** Where the object opened at `start` closes (braces inside strings skipped), or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return index;
  }
  return -1;
}
