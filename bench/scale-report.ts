/** The scale-out levels' report: the embedded bench's figures beside round trips and CPU per run. */
import { f1, f2, f3 } from './format.ts';
import { levelName, type DurabilityCheck, type LevelResult, type LoadLevel } from './report.ts';
import type { ServerDelta } from './server-counters.ts';

export interface ScaleLevel {
  workers: number;
  level: LevelResult;
  /** Runs started while the servers' counters were read (the level's warm-up wave included). */
  runsCounted: number;
  /** The servers' counts and CPU over the level, less the idle deployment's over the same time. */
  servers: ServerDelta;
  /** CPU of the API and worker processes over the same window, less idle (ms). */
  roles: { api: number; workers: number };
}

/** The bench's own INFO calls, not the service's. */
/** The bench's group of runs of one level on one configuration (for the event-log check). */
export function groupLabel(level: LoadLevel, workers: number): string {
  return `${levelName(level)}, ${workers} worker${workers > 1 ? 's' : ''}`;
}

const OWN_COMMANDS = new Set(['info']);
const STATEMENT_SHOWN = 0.05;

const topLevel = (statements: ServerDelta['statements'] & object) =>
  statements.reduce((sum, entry) => sum + (entry.toplevel ? entry.calls : 0), 0);
const nested = (statements: ServerDelta['statements'] & object) =>
  statements.reduce((sum, entry) => sum + (entry.toplevel ? 0 : entry.calls), 0);

export function redisCommands(servers: ServerDelta): [string, number][] {
  return [...servers.redis].filter(([command]) => !OWN_COMMANDS.has(command)).sort((a, b) => b[1] - a[1]);
}

export function countsText(
  servers: ServerDelta,
  roles: { api: number; workers: number },
  divisor: number,
  unit: string,
): string {
  const per = (value: number) => value / divisor;
  const { postgres } = servers;
  const statements = servers.statements;
  const redis = redisCommands(servers);
  const redisTotal = redis.reduce((sum, [, calls]) => sum + calls, 0);
  const lines = [
    `PostgreSQL ${f2(per(postgres.commits))} commits, ${f2(per(postgres.rollbacks))} rollbacks, ` +
      `${statements ? f2(per(topLevel(statements))) : 'n/a'} statements sent (round trips), ` +
      `${statements ? f2(per(nested(statements))) : 'n/a'} run by triggers; rows ` +
      `inserted ${f2(per(postgres.inserted))}, updated ${f2(per(postgres.updated))}, deleted ${f2(per(postgres.deleted))}, ` +
      `fetched ${f2(per(postgres.fetched))}; WAL ${f1(per(postgres.walBytes) / 1024)} KiB, database grew ${f1(per(postgres.databaseBytes) / 1024)} KiB`,
    `Redis ${f2(per(redisTotal))} commands: ${redis.map(([command, calls]) => `${command} ${f2(per(calls))}`).join(', ')}`,
    `CPU ms: API ${f2(per(roles.api))}, workers ${f2(per(roles.workers))}, PostgreSQL ${f2(per(servers.cpuMs.postgres))}, Redis ${f2(per(servers.cpuMs.redis))}`,
  ];
  for (const entry of grouped(statements ?? [])) {
    if (per(entry.calls) < STATEMENT_SHOWN) continue;
    const text = entry.query.slice(0, 160);
    const where = entry.toplevel ? '' : 'nested, ';
    lines.push(
      `  ${f2(per(entry.calls)).padStart(7)} calls (${where}${f2(per(entry.rows))} rows) ${unit}: ${text}`,
    );
  }
  return [`(${unit})`, ...lines].join('\n    ');
}

/**
 * Statements that differ only in how many rows or ids they carry (a batch of events: `values (…), (…)`, or one;
 * `in ($1, $2)`) as one, with their calls and rows added up.
 */
function grouped(statements: NonNullable<ServerDelta['statements']>) {
  const byText = new Map<string, { query: string; toplevel: boolean; calls: number; rows: number }>();
  for (const entry of statements) {
    const query = entry.query
      .replace(/\s+/g, ' ')
      .replace(/ values \((\$\d+, )*\$\d+\)(, \((\$\d+, )*\$\d+\))*/g, ' values (…)…')
      .replace(/ in \((\$\d+, )*\$\d+\)/g, ' in (…)');
    const key = `${entry.toplevel}${query}`;
    const sum = byText.get(key) ?? { query, toplevel: entry.toplevel, calls: 0, rows: 0 };
    sum.calls += entry.calls;
    sum.rows += entry.rows;
    byText.set(key, sum);
  }
  return [...byText.values()].sort((a, b) => b.calls - a.calls);
}

export function scaleMarkdown(levels: ScaleLevel[], durability: DurabilityCheck): string {
  const rows = levels.map(({ workers, level, runsCounted, servers, roles }) => {
    const per = (value: number) => value / runsCounted;
    const redis = redisCommands(servers).reduce((sum, [, calls]) => sum + calls, 0);
    const statements = servers.statements ? topLevel(servers.statements) : NaN;
    const written = servers.postgres.inserted + servers.postgres.updated + servers.postgres.deleted;
    const group = durability.groups.find((entry) => entry.label === groupLabel(level, workers));
    return (
      `| ${workers} | ${levelName(level)} | ${level.service.runs} | ` +
      `${f1(level.direct.runsPerSec)} / ${f1(level.service.runsPerSec)} | ` +
      `${f1(level.direct.ttft.p50)} / ${f1(level.service.ttft.p50)} | ` +
      `${f3(level.ratio.doneP50)} / ${f3(level.ratio.doneP99)} | ${level.service.errors} | ` +
      `${f2(per(roles.api))} / ${f2(per(roles.workers))} / ${f2(per(servers.cpuMs.postgres))} / ${f2(per(servers.cpuMs.redis))} | ` +
      `${f1(per(servers.postgres.commits))} / ${f1(per(statements))} / ${f1(per(written))} | ${f1(per(redis))} | ` +
      `${group ? `${group.eventsInLog} / ${group.framesSeen}${group.pass ? '' : ' FAIL'}` : 'n/a'} |`
    );
  });
  return [
    '| workers | level | runs | runs/s direct / service | TTFT p50 ms direct / service | completion ratio p50 / p99 | errors | CPU ms per run: API / workers / PostgreSQL / Redis | PostgreSQL per run: commits / statements sent / rows written | Redis commands per run | events in log / frames streamed |',
    '| -: | - | -: | -: | -: | -: | -: | -: | -: | -: | -: |',
    ...rows,
    '',
    `Event log: ${durability.runsSucceeded} of ${durability.runsCreated} runs succeeded, ${durability.eventsInLog} events for ${durability.framesSeen} frames streamed: ${durability.pass ? 'pass' : 'FAIL'}.`,
    ...durability.groups
      .filter((group) => !group.pass)
      .map(
        (group) =>
          `- ${group.label} (its warm-up wave included): ${group.started} started, ${group.created} in the log, ` +
          `${group.succeeded} succeeded, ${group.streamedToEnd} streamed to their result, ` +
          `${group.mismatchedRuns} whose log holds another number of events than the client was streamed`,
      ),
  ].join('\n');
}
