import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ID_PREFIX,
  idBoundAt,
  isWellFormedId,
  newId,
  randomBase62,
  type IdKind,
} from '../../src/domain/ids.ts';
import type { RunEventType } from '../../src/domain/run-events.ts';
import { dataJsonOfFrame, sseFrame } from '../../src/domain/sse-frame.ts';
import { isJsonObject } from '../../src/domain/json-object.ts';
import {
  METADATA_BYTES_MAX,
  METADATA_ENTRIES_MAX,
  metadataLimitViolations,
} from '../../src/domain/metadata.ts';
import { catalogSlug } from '../../src/domain/model.ts';
import { OAUTH_SCOPE_NAMES, isOAuthScope, parseScopeParameter } from '../../src/domain/oauth-scopes.ts';
import { DEFAULT_RATE_LIMITS, rateLimitFor, type RateLimitBucket } from '../../src/domain/rate-limits.ts';
import { normalizeReasoningLevel, reasoningEffortLabel } from '../../src/domain/reasoning-level.ts';
import { extendSessionSummary, sessionSummary } from '../../src/domain/session-summary.ts';
import { SLUG_PATTERN, slugify } from '../../src/domain/slug.ts';
import { CLIENT_TOOL_KINDS, SERVER_TOOL_KINDS, isServerToolKind } from '../../src/domain/tool-ref.ts';
import { addUsage, zeroUsage, type ReasoningEffortLabel, type TokenUsage } from '../../src/domain/usage.ts';
import { withoutUndefined } from '../../src/domain/without-undefined.ts';

// Table tests of the pure domain rules: one `it` per row, so each row is reported (and counted) on its own.

describe('slugs: lowercase letters, digits and inner dashes, 1 to 64 characters', () => {
  const rows: Array<[slug: string, wellFormed: boolean]> = [
    ['a', true],
    ['acme', true],
    ['2024', true],
    ['acme-corp', true],
    ['a-b-c-1', true],
    ['a--b', true],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['', false],
    ['-acme', false],
    ['acme-', false],
    ['Acme', false],
    ['acme corp', false],
    ['acme_corp', false],
    ['acmé', false],
  ];
  for (const [slug, wellFormed] of rows) {
    it(`${JSON.stringify(slug.length > 20 ? `${slug.slice(0, 8)}… (${slug.length} chars)` : slug)} is ${wellFormed ? '' : 'not '}a slug`, () => {
      assert.equal(SLUG_PATTERN.test(slug), wellFormed);
    });
  }
});

describe('slugify: the slug derived from a display name', () => {
  const rows: Array<[name: string, slug: string]> = [
    ['Support Bot', 'support-bot'],
    ['  Trim me  ', 'trim-me'],
    ['a__b..c', 'a-b-c'],
    ['--Dashes--', 'dashes'],
    ['R2-D2', 'r2-d2'],
    ['!!!', 'agent'],
    ['', 'agent'],
    [`${'x'.repeat(63)} tail`, 'x'.repeat(63)],
  ];
  for (const [name, slug] of rows) {
    it(`${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…` : name)} → ${JSON.stringify(slug.length > 20 ? `${slug.slice(0, 8)}…` : slug)}`, () => {
      assert.equal(slugify(name), slug);
    });
  }

  it('property: whatever the name, slugify gives a well-formed slug, and a slug is its own slug', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 80 })),
        (name) => {
          const slug = slugify(name);
          assert.match(slug, SLUG_PATTERN);
          assert.equal(slugify(slug), slug);
        },
      ),
    );
  });
});

describe('identifiers: <prefix>_<lowercase ULID>', () => {
  it('every kind: the prefix, then a lowercase ULID; well formed for its kind only', () => {
    for (const kind of Object.keys(ID_PREFIX) as IdKind[]) {
      const id = newId(kind);
      assert.match(id, new RegExp(`^${ID_PREFIX[kind]}_[0-9a-hjkmnp-tv-z]{26}$`));
      assert.ok(isWellFormedId(kind, id));
    }
    assert.equal(isWellFormedId('session', newId('run')), false);
  });

  it('ids drawn past the random pool (many thousands) stay distinct and use the whole alphabet', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('run'));
    assert.equal(new Set(ids).size, ids.length);
    const randomPart = new Set(ids.flatMap((id) => [...id.slice(-16)]));
    assert.equal(randomPart.size, 32, 'all 32 Crockford characters appear in the random part');
  });

  for (const kind of Object.keys(ID_PREFIX) as IdKind[]) {
    it(`${kind}: a new id starts with ${ID_PREFIX[kind]}_ and is well formed for ${kind} only`, () => {
      const id = newId(kind);
      assert.ok(id.startsWith(`${ID_PREFIX[kind]}_`));
      assert.ok(isWellFormedId(kind, id));
      for (const other of Object.keys(ID_PREFIX) as IdKind[]) {
        if (ID_PREFIX[other] !== ID_PREFIX[kind]) assert.equal(isWellFormedId(other, id), false, other);
      }
    });
  }

  const malformed: Array<[why: string, value: string]> = [
    ['upper case', `run_${'A'.repeat(26)}`],
    ['too short', `run_${'a'.repeat(25)}`],
    ['too long', `run_${'a'.repeat(27)}`],
    ['a letter Crockford leaves out (u)', `run_${'u'.repeat(26)}`],
    ['no prefix', 'a'.repeat(26)],
    ['the wrong separator', `run-${'a'.repeat(26)}`],
  ];
  for (const [why, value] of malformed) {
    it(`an id with ${why} is not well formed`, () => {
      assert.equal(isWellFormedId('run', value), false);
    });
  }

  it('idBoundAt(t) sorts above every id made before t and below every id made after it', () => {
    const before = newId('run');
    const bound = idBoundAt('run', Date.now() + 1);
    assert.ok(before < bound, `${before} < ${bound}`);
    assert.ok(bound < idBoundAt('run', Date.now() + 60_000));
  });

  for (const length of [0, 1, 16, 43]) {
    it(`randomBase62(${length}) is ${length} characters of [0-9A-Za-z]`, () => {
      assert.match(randomBase62(length), new RegExp(`^[0-9A-Za-z]{${length}}$`));
    });
  }
});

describe('SSE frames', () => {
  it('a frame carries its event: data as the client parses it, and the serialized data given back exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.constantFrom<RunEventType>('assistant_delta', 'tool_call', 'local_tool_call', 'result', 'error'),
        fc.jsonValue(),
        (seq, type, data) => {
          const dataJson = JSON.stringify(data);
          const frame = sseFrame(seq, type, dataJson);
          assert.equal(dataJsonOfFrame(seq, type, frame), dataJson);
          const dataLine = frame.split('\n').find((line) => line.startsWith('data: ')) ?? '';
          assert.deepEqual(JSON.parse(dataLine.slice('data: '.length)), {
            seq,
            type,
            data: JSON.parse(dataJson),
          });
        },
      ),
    );
  });

  it('the frame of another event is refused, not misread', () => {
    const frame = sseFrame(7, 'assistant_delta', '{"text":"hi"}');
    assert.throws(() => dataJsonOfFrame(8, 'assistant_delta', frame), /not the SSE frame of event 8/);
    assert.throws(() => dataJsonOfFrame(7, 'result', frame), /not the SSE frame of event 7/);
  });
});

describe('metadata limits: at most 16 entries and 4 KB serialized', () => {
  const entries = (count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 'v']));
  // {"k":"…"} is 8 bytes around the value.
  const ofBytes = (bytes: number) => ({ k: 'x'.repeat(bytes - 8) });
  const rows: Array<[what: string, metadata: Record<string, string>, violations: RegExp[]]> = [
    ['an empty map', {}, []],
    [`${METADATA_ENTRIES_MAX} entries`, entries(METADATA_ENTRIES_MAX), []],
    [
      `${METADATA_ENTRIES_MAX + 1} entries`,
      entries(METADATA_ENTRIES_MAX + 1),
      [/at most 16 entries \(got 17\)/],
    ],
    [`exactly ${METADATA_BYTES_MAX} bytes`, ofBytes(METADATA_BYTES_MAX), []],
    [
      `${METADATA_BYTES_MAX + 1} bytes`,
      ofBytes(METADATA_BYTES_MAX + 1),
      [/at most 4 KB \(4,096 bytes; got 4,097\)/],
    ],
    ['multi-byte characters counted in UTF-8 bytes', { k: 'é'.repeat(2045) }, [/got 4,098\)/]],
    [
      'too many entries and too large',
      { ...entries(METADATA_ENTRIES_MAX), big: 'x'.repeat(METADATA_BYTES_MAX) },
      [/entries/, /4 KB/],
    ],
  ];
  for (const [what, metadata, expected] of rows) {
    it(`${what}: ${expected.length === 0 ? 'fits' : expected.map(String).join(' and ')}`, () => {
      const violations = metadataLimitViolations(metadata);
      assert.equal(violations.length, expected.length, violations.join('; '));
      for (const [index, pattern] of expected.entries()) assert.match(violations[index] ?? '', pattern);
    });
  }
});

describe('rate limits: the spec default of each bucket unless the workspace overrides it', () => {
  const overrides = { runStart: 1, lifecycle: 2, otherMutations: 3, transport: 4 };
  const rows: Array<[bucket: RateLimitBucket, defaultLimit: number, overridden: number]> = [
    ['run_start', 120, 1],
    ['lifecycle', 600, 2],
    ['other_mutations', 120, 3],
    ['transport', 6000, 4],
  ];
  for (const [bucket, defaultLimit, overridden] of rows) {
    it(`${bucket}: ${defaultLimit} a minute by default, the workspace's own number when set`, () => {
      assert.equal(DEFAULT_RATE_LIMITS[bucket], defaultLimit);
      assert.equal(rateLimitFor(bucket, {}), defaultLimit);
      assert.equal(rateLimitFor(bucket, overrides), overridden);
    });
  }
});

describe('reasoning levels: labels and numbers to 0-100, and back to the effort label', () => {
  const normalized: Array<[input: ReasoningEffortLabel | number, level: number]> = [
    ['off', 0],
    ['low', 30],
    ['medium', 50],
    ['high', 80],
    [0, 0],
    [42, 42],
    [49.5, 50],
    [-5, 0],
    [150, 100],
    [Number.NaN, 0],
    [Number.POSITIVE_INFINITY, 0],
  ];
  for (const [input, level] of normalized) {
    it(`normalizeReasoningLevel(${typeof input === 'string' ? `'${input}'` : String(input)}) = ${level}`, () => {
      assert.equal(normalizeReasoningLevel(input), level);
    });
  }

  const labels: Array<[level: number, label: ReasoningEffortLabel]> = [
    [-1, 'off'],
    [0, 'off'],
    [1, 'low'],
    [35, 'low'],
    [36, 'medium'],
    [65, 'medium'],
    [66, 'high'],
    [100, 'high'],
  ];
  for (const [level, label] of labels) {
    it(`reasoningEffortLabel(${level}) = '${label}'`, () => {
      assert.equal(reasoningEffortLabel(level), label);
    });
  }

  it('property: every input normalizes into 0-100, and a label is its own level’s label', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double(), fc.constantFrom<ReasoningEffortLabel>('off', 'low', 'medium', 'high')),
        (input) => {
          const level = normalizeReasoningLevel(input);
          assert.ok(Number.isInteger(level) && level >= 0 && level <= 100, String(level));
          if (typeof input === 'string') assert.equal(reasoningEffortLabel(level), input);
        },
      ),
    );
  });
});

describe('token usage: zero, and the sum of turns bucket by bucket', () => {
  const usage = (
    inputTokens: number,
    cachedTokens: number,
    reasoningTokens: number,
    outputTokens: number,
  ) => ({
    inputTokens,
    cachedTokens,
    reasoningTokens,
    outputTokens,
  });
  const rows: Array<[what: string, total: TokenUsage, turn: TokenUsage, sum: TokenUsage]> = [
    ['zero plus zero', zeroUsage(), zeroUsage(), usage(0, 0, 0, 0)],
    ['zero plus a turn', zeroUsage(), usage(10, 2, 3, 4), usage(10, 2, 3, 4)],
    ['two turns', usage(10, 2, 3, 4), usage(1, 1, 1, 1), usage(11, 3, 4, 5)],
  ];
  for (const [what, total, turn, sum] of rows) {
    it(`${what}`, () => {
      assert.deepEqual(addUsage(total, turn), sum);
    });
  }

  it('property: adding turns is associative, commutative and zero is neutral', () => {
    const count = fc.nat({ max: 1_000_000 });
    const anyUsage = fc.record(
      {
        inputTokens: count,
        cachedTokens: count,
        reasoningTokens: count,
        outputTokens: count,
      },
      { noNullPrototype: true },
    );
    fc.assert(
      fc.property(anyUsage, anyUsage, anyUsage, (a, b, c) => {
        assert.deepEqual(addUsage(addUsage(a, b), c), addUsage(a, addUsage(b, c)));
        assert.deepEqual(addUsage(a, b), addUsage(b, a));
        assert.deepEqual(addUsage(a, zeroUsage()), a);
      }),
    );
  });
});

describe('OAuth scope parameter: known scopes once each in catalog order, unknown names apart', () => {
  const rows: Array<[scope: string, scopes: string[], unknown: string[]]> = [
    ['', [], []],
    ['runs:read', ['runs:read'], []],
    ['runs:write runs:read', ['runs:read', 'runs:write'], []],
    ['runs:read  runs:read', ['runs:read'], []],
    ['runs:read admin', ['runs:read'], ['admin']],
    ['RUNS:READ', [], ['RUNS:READ']],
    ['svc.identity:read models:read', ['models:read', 'svc.identity:read'], []],
  ];
  for (const [scope, scopes, unknown] of rows) {
    it(`${JSON.stringify(scope)} → ${JSON.stringify(scopes)}${unknown.length > 0 ? `, unknown ${JSON.stringify(unknown)}` : ''}`, () => {
      assert.deepEqual(parseScopeParameter(scope), { scopes, unknown });
    });
  }

  it('property: every name of the parameter is either a parsed scope or unknown, never both, never lost', () => {
    const name = fc.oneof(fc.constantFrom(...OAUTH_SCOPE_NAMES), fc.stringMatching(/^[a-z.:_]{1,12}$/));
    fc.assert(
      fc.property(fc.array(name, { maxLength: 12 }), (names) => {
        const { scopes, unknown } = parseScopeParameter(names.join(' '));
        assert.deepEqual([...new Set([...scopes, ...unknown])].sort(), [...new Set(names)].sort());
        assert.ok(scopes.every((scope) => isOAuthScope(scope)));
        assert.ok(unknown.every((entry) => !isOAuthScope(entry)));
        assert.deepEqual(
          scopes,
          OAUTH_SCOPE_NAMES.filter((known) => scopes.includes(known)),
        );
      }),
    );
  });
});

describe('session summary: the first user prompt, extended while it says too little, capped at 120', () => {
  const user = (content: string) => ({ role: 'user', content });
  const assistant = (content: string) => ({ role: 'assistant', content });
  const system = (content: string) => ({ role: 'system', content });
  const rows: Array<[what: string, messages: Array<{ role: string; content: string }>, summary: string]> = [
    ['no messages', [], ''],
    ['no user message', [assistant('hello')], ''],
    [
      'a blank user message is skipped',
      [user('  '), user('Plan my trip to Lisbon in May')],
      'Plan my trip to Lisbon in May',
    ],
    ['whitespace collapsed', [user('Plan\n my   trip to Lisbon in May')], 'Plan my trip to Lisbon in May'],
    [
      'a short opener grows with the next messages',
      [user('hi'), assistant('Hello! How can I help?'), user('more')],
      'hi / Hello! How can I help?',
    ],
    [
      'system messages do not extend it',
      [user('hi'), system('be brief'), assistant('Hello there, friend!')],
      'hi / Hello there, friend!',
    ],
    ['a long prompt is cut at 120 with an ellipsis', [user('x'.repeat(200))], `${'x'.repeat(119)}…`],
  ];
  for (const [what, messages, summary] of rows) {
    it(what, () => {
      assert.equal(sessionSummary(messages), summary);
    });
  }

  const extended: Array<
    [what: string, current: string, messages: Array<{ role: string; content: string }>, summary: string]
  > = [
    [
      'an empty summary starts from the messages',
      '',
      [user('Plan my trip to Lisbon in May')],
      'Plan my trip to Lisbon in May',
    ],
    [
      'a summary long enough stays',
      'Plan my trip to Lisbon in May',
      [user('and June?')],
      'Plan my trip to Lisbon in May',
    ],
    [
      'a short summary keeps growing',
      'hi',
      [assistant('Hello! How can I help?')],
      'hi / Hello! How can I help?',
    ],
  ];
  for (const [what, current, messages, summary] of extended) {
    it(`extendSessionSummary: ${what}`, () => {
      assert.equal(extendSessionSummary(current, messages), summary);
    });
  }
});

describe('small rules: tool kinds, catalog slugs, JSON objects, undefined keys', () => {
  for (const kind of SERVER_TOOL_KINDS) {
    it(`${kind} is a tool the service executes`, () => assert.equal(isServerToolKind(kind), true));
  }
  for (const kind of CLIENT_TOOL_KINDS) {
    it(`${kind} is a tool only the client executes`, () => assert.equal(isServerToolKind(kind), false));
  }

  it("catalogSlug is '<provider>/<vendor model id>', the vendor id kept as is", () => {
    assert.equal(catalogSlug('openai', 'gpt-4o'), 'openai/gpt-4o');
    assert.equal(catalogSlug('acme', 'models/gemini-2.0'), 'acme/models/gemini-2.0');
  });

  const values: Array<[what: string, value: unknown, isObject: boolean]> = [
    ['{}', {}, true],
    ['{ a: 1 }', { a: 1 }, true],
    ['null', null, false],
    ['[]', [], false],
    ['"text"', 'text', false],
    ['1', 1, false],
    ['undefined', undefined, false],
  ];
  for (const [what, value, isObject] of values) {
    it(`isJsonObject(${what}) is ${isObject}`, () => assert.equal(isJsonObject(value), isObject));
  }

  it('withoutUndefined drops the keys whose value is undefined and keeps null, 0, false and empty strings', () => {
    assert.deepEqual(withoutUndefined({ a: undefined, b: null, c: 0, d: false, e: '' }), {
      b: null,
      c: 0,
      d: false,
      e: '',
    });
    assert.deepEqual(Object.keys(withoutUndefined({ a: undefined })), []);
  });
});
