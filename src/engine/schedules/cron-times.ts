import { Cron } from 'croner';
import { InvalidRequestError } from '../../domain/errors.ts';

/** A schedule's times: its cron expression read in its IANA time zone. */
export interface CronTimes {
  /** The first time strictly after `after`, or null when the expression has no further time. */
  nextAfter(after: Date): Date | null;
}

/**
 * Reads `cron` (5 fields, or 6 with seconds first; no nicknames such as `@daily`) in `timezone` (an
 * IANA name). Anything else is `400 invalid_request` naming the field.
 */
export function cronTimes(cron: string, timezone: string): CronTimes {
  checkTimezone(timezone);
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    throw new InvalidRequestError(
      `cron: must have 5 fields, or 6 with seconds first (got ${fields.length === 1 && fields[0] === '' ? 0 : fields.length})`,
    );
  }
  let pattern: Cron;
  try {
    pattern = new Cron(fields.join(' '), { mode: '5-or-6-parts', timezone, paused: true });
  } catch (error) {
    throw new InvalidRequestError(`cron: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { nextAfter: (after) => pattern.nextRun(after) };
}

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new InvalidRequestError(`timezone: '${timezone}' is not an IANA time zone name`);
  }
  // Intl also takes offsets such as "+01:00", which are not IANA names.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(timezone)) {
    throw new InvalidRequestError(`timezone: '${timezone}' is not an IANA time zone name`);
  }
}
