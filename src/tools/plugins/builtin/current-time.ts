import type { ToolPlugin, ToolPluginModule } from '../tool-plugin.ts';

const TIME_ZONE_RULE =
  "timeZone must be an IANA time zone name such as 'UTC', 'Europe/Paris' or 'America/New_York'";

/** `current_time`: the date and time now in a time zone; `now` is the clock (tests fix it). */
export function currentTimePlugin(now: () => Date = () => new Date()): ToolPlugin {
  return {
    name: 'current_time',
    description:
      'Returns the current date and time in a time zone (default UTC): ISO 8601 with the UTC offset, and the weekday.',
    parameters: {
      type: 'object',
      properties: {
        timeZone: {
          type: 'string',
          description: "IANA time zone name, for example 'Europe/Paris'. Default 'UTC'.",
          minLength: 1,
          maxLength: 64,
        },
      },
      additionalProperties: false,
    },
    readOnly: true,
    async execute(args) {
      const timeZone = typeof args.timeZone === 'string' ? args.timeZone : 'UTC';
      const zoned = zonedTime(now(), timeZone);
      if (zoned === undefined) throw new Error(`unknown time zone '${timeZone}': ${TIME_ZONE_RULE}`);
      return `${zoned.iso} (${zoned.weekday}, ${zoned.timeZone})`;
    },
  };
}

export const currentTimeModule: ToolPluginModule = { name: 'current_time', plugins: [currentTimePlugin()] };

/**
 * The instant as local ISO 8601 with offset in the zone, with the zone's canonical name ('utc' is
 * 'UTC'); undefined when Intl does not know the zone.
 */
export function zonedTime(
  instant: Date,
  timeZone: string,
): { iso: string; weekday: string; timeZone: string } | undefined {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      weekday: 'long',
      timeZoneName: 'longOffset',
    });
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  const parts = Object.fromEntries(format.formatToParts(instant).map((part) => [part.type, part.value]));
  // 'GMT+09:00', or a bare 'GMT' for a zero offset.
  const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT/, '') || '+00:00';
  return {
    iso: `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`,
    weekday: parts.weekday ?? '',
    timeZone: format.resolvedOptions().timeZone,
  };
}
