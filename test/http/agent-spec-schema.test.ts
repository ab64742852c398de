import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { InvalidRequestError } from '../../src/domain/errors.ts';
import { parseInput } from '../../src/http/parse.ts';
import {
  ALLOWED_ATTACHMENT_MIME,
  agentSpecFields,
  decodedBase64Size,
  isAllowedAttachmentMime,
  isWellFormedBase64,
  messagesSchema,
  metadataSchema,
  runRequestSchema,
} from '../../src/http/schemas/agent-spec.ts';

const MB5 = 5 * 1024 * 1024;
const BASE = { systemPrompt: 'You are terse.', prompt: 'hi' };

/** Parses a run request on top of a valid base body. */
const parseRun = (fields: Record<string, unknown>) => parseInput(runRequestSchema, { ...BASE, ...fields });

/** The InvalidRequestError message raised for `input`; fails the test when the input parses. */
function rejection(input: unknown, schema: z.ZodType = runRequestSchema, what?: string): string {
  try {
    parseInput(schema, input, what);
  } catch (error) {
    assert.ok(error instanceof InvalidRequestError, `expected InvalidRequestError, got ${String(error)}`);
    assert.equal(error.code, 'invalid_request');
    return error.message;
  }
  return assert.fail(`expected ${JSON.stringify(input).slice(0, 200)} to be rejected`);
}

/** Asserts that a run request with `fields` on top of the valid base is rejected with `expected`. */
const rejectsRun = (fields: Record<string, unknown>, expected: RegExp) =>
  assert.match(rejection({ ...BASE, ...fields }), expected);

const userMessage = (content = 'hello', attachments?: unknown[]) =>
  attachments === undefined ? { role: 'user', content } : { role: 'user', content, attachments };
const inlineFile = (data = 'aGVsbG8=', mimeType = 'text/plain', filename = 'a.txt') => ({
  type: 'input_file',
  mimeType,
  filename,
  data,
});
const urlFile = (url = 'https://127.0.0.1:9/files/report.pdf') => ({ type: 'input_file_url', url });
/** Valid base64 of exactly `bytes` bytes. */
const base64OfSize = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');
const withMessages = (messages: unknown[]) => ({ systemPrompt: 'sys', messages });
const rejectsMessages = (messages: unknown[], expected: RegExp) =>
  assert.match(rejection(withMessages(messages)), expected);

describe('run request: prompt or messages', () => {
  it('accepts a prompt, drops unknown top-level fields and keeps the spec fields', () => {
    const parsed = parseInput(runRequestSchema, {
      name: 'triage',
      systemPrompt: 'You are terse.',
      modelId: 'openai/gpt-5-mini',
      prompt: 'hi',
      localToolTimeoutMs: 60_000,
      somethingNew: { nested: true },
    });
    assert.deepEqual(parsed, {
      name: 'triage',
      systemPrompt: 'You are terse.',
      modelId: 'openai/gpt-5-mini',
      prompt: 'hi',
      localToolTimeoutMs: 60_000,
    });
  });

  it('accepts messages instead of a prompt', () => {
    const parsed = parseInput(runRequestSchema, withMessages([userMessage('first')]));
    assert.deepEqual(parsed, { systemPrompt: 'sys', messages: [{ role: 'user', content: 'first' }] });
  });

  it('rejects both prompt and messages', () => {
    assert.match(
      rejection({ ...BASE, messages: [userMessage()] }),
      /^body: exactly one of prompt or messages is required \(both were given\)$/,
    );
  });

  it('rejects neither prompt nor messages', () => {
    assert.match(
      rejection({ systemPrompt: 'sys' }),
      /^body: exactly one of prompt or messages is required \(neither was given\)$/,
    );
    assert.match(rejection(undefined), /exactly one of prompt or messages is required/);
  });

  it('bounds prompt to 1..200,000 characters', () => {
    assert.equal(parseRun({ prompt: 'x'.repeat(200_000) }).prompt?.length, 200_000);
    rejectsRun({ prompt: '' }, /^prompt: must be 1 to 200,000 characters$/);
    rejectsRun({ prompt: 'x'.repeat(200_001) }, /^prompt: must be 1 to 200,000 characters$/);
    rejectsRun({ prompt: 42 }, /^prompt: must be a string$/);
  });

  it('rejects a body that is not an object', () => {
    assert.match(rejection([]), /^body: must be a JSON object$/);
    assert.match(rejection('hi'), /^body: must be a JSON object$/);
  });

  it('bounds localToolTimeoutMs to integers 1,000..3,600,000', () => {
    assert.equal(parseRun({ localToolTimeoutMs: 1_000 }).localToolTimeoutMs, 1_000);
    assert.equal(parseRun({ localToolTimeoutMs: 3_600_000 }).localToolTimeoutMs, 3_600_000);
    for (const bad of [999, 3_600_001, 1_500.5, '60000']) {
      rejectsRun(
        { localToolTimeoutMs: bad },
        /^localToolTimeoutMs: must be an integer from 1,000 to 3,600,000$/,
      );
    }
  });
});

describe('run request: agentId, systemPrompt or a system message is required', () => {
  const NEEDS =
    /^systemPrompt: required unless agentId is set or messages include a non-empty system message$/;

  it('accepts an agentId without a systemPrompt', () => {
    assert.deepEqual(parseInput(runRequestSchema, { agentId: 'agt_1', prompt: 'hi' }), {
      agentId: 'agt_1',
      prompt: 'hi',
    });
  });

  it('accepts a non-empty system message without a systemPrompt', () => {
    const parsed = parseInput(runRequestSchema, {
      messages: [{ role: 'system', content: 'Be brief.' }, userMessage()],
    });
    assert.equal(parsed.messages?.length, 2);
  });

  it('rejects a run with none of them', () => {
    assert.match(rejection({ prompt: 'hi' }), NEEDS);
    assert.match(rejection({ prompt: 'hi', systemPrompt: '' }), NEEDS);
    assert.match(rejection({ prompt: 'hi', systemPrompt: '   ' }), NEEDS);
    assert.match(rejection({ prompt: 'hi', agentId: '' }), NEEDS);
    assert.match(rejection({ messages: [{ role: 'system', content: ' ' }, userMessage()] }), NEEDS);
    assert.match(rejection({ messages: [userMessage()] }), NEEDS);
  });

  it('bounds systemPrompt to 200,000 characters', () => {
    assert.equal(parseRun({ systemPrompt: 's'.repeat(200_000) }).systemPrompt?.length, 200_000);
    rejectsRun({ systemPrompt: 's'.repeat(200_001) }, /^systemPrompt: must be at most 200,000 characters$/);
  });

  it('type-checks name, agentId and modelId', () => {
    rejectsRun({ name: 1 }, /^name: must be a string$/);
    rejectsRun({ agentId: 1 }, /^agentId: must be a string$/);
    rejectsRun({ modelId: null }, /^modelId: must be a string$/);
  });
});

describe('messages', () => {
  it('accepts user, assistant and system roles, with system messages after the last user turn', () => {
    const messages = [
      { role: 'system', content: 'extra context' },
      userMessage('q1'),
      { role: 'assistant', content: 'a1' },
      userMessage('q2'),
      { role: 'system', content: 'trailing system note' },
    ];
    assert.deepEqual(parseInput(messagesSchema, messages, 'messages'), messages);
  });

  it('rejects an unknown role and non-string content', () => {
    rejectsMessages(
      [{ role: 'tool', content: 'x' }, userMessage()],
      /^messages\.0\.role: must be user, assistant or system$/,
    );
    rejectsMessages(
      [userMessage(), { role: 'user', content: 5 }],
      /^messages\.1\.content: must be a string$/,
    );
    rejectsMessages(['hello'], /^messages\.0: must be an object \{ role, content, attachments\? \}$/);
    assert.match(
      rejection({ systemPrompt: 'sys', messages: 'hello' }),
      /^messages: must be an array of messages$/,
    );
  });

  it('bounds content to 200,000 characters', () => {
    const parsed = parseInput(runRequestSchema, withMessages([userMessage('x'.repeat(200_000))]));
    assert.equal(parsed.messages?.[0]?.content.length, 200_000);
    rejectsMessages(
      [userMessage('x'.repeat(200_001))],
      /^messages\.0\.content: must be at most 200,000 characters$/,
    );
  });

  it('accepts 200 messages and rejects 201', () => {
    const turns = (count: number) =>
      Array.from({ length: count }, (_, index) =>
        index % 2 === 0 ? userMessage(`q${index}`) : { role: 'assistant', content: `a${index}` },
      );
    assert.equal(parseInput(runRequestSchema, withMessages(turns(199))).messages?.length, 199);
    assert.equal(
      parseInput(runRequestSchema, withMessages([...turns(199), userMessage()])).messages?.length,
      200,
    );
    rejectsMessages([...turns(200), userMessage()], /^messages: must contain at most 200 messages$/);
  });

  it('rejects an assistant message as the last non-system message', () => {
    rejectsMessages(
      [userMessage(), { role: 'assistant', content: 'done' }],
      /^messages: the last non-system message must have role user \(messages\.1 has role assistant\)$/,
    );
    rejectsMessages(
      [userMessage(), { role: 'assistant', content: 'done' }, { role: 'system', content: 'note' }],
      /^messages: the last non-system message must have role user \(messages\.1 has role assistant\)$/,
    );
  });

  it('rejects system-only and empty message lists', () => {
    const NONE = /^messages: must contain at least one non-system message; the last one must have role user$/;
    rejectsMessages([{ role: 'system', content: 'only system' }], NONE);
    rejectsMessages([], NONE);
  });

  it('accepts 20 attachments on the last user message and rejects 21', () => {
    const files = (count: number) => Array.from({ length: count }, () => urlFile());
    const messages = [userMessage('q1'), { role: 'assistant', content: 'a1' }];
    const parsed = parseInput(runRequestSchema, withMessages([...messages, userMessage('q2', files(20))]));
    assert.equal(parsed.messages?.[2]?.attachments?.length, 20);
    rejectsMessages(
      [...messages, userMessage('q2', files(21))],
      /^messages\.2\.attachments: at most 20 attachments on the last user message \(got 21\)$/,
    );
  });

  it('accepts (and keeps) attachments on older messages, even more than 20', () => {
    const older = Array.from({ length: 25 }, () => urlFile());
    const parsed = parseInput(
      runRequestSchema,
      withMessages([
        userMessage('q1', older),
        { role: 'assistant', content: 'a1', attachments: [inlineFile()] },
        userMessage('q2'),
      ]),
    );
    assert.equal(parsed.messages?.[0]?.attachments?.length, 25);
    assert.equal(parsed.messages?.[1]?.attachments?.length, 1);
  });
});

describe('attachments', () => {
  const rejectsAttachment = (attachment: unknown, expected: RegExp) =>
    rejectsMessages([userMessage('look', [attachment])], expected);
  const parseAttachment = (attachment: unknown) =>
    parseInput(runRequestSchema, withMessages([userMessage('look', [attachment])])).messages?.[0]
      ?.attachments?.[0];

  it('accepts an inline file of every listed MIME type', () => {
    for (const mimeType of ALLOWED_ATTACHMENT_MIME) {
      assert.deepEqual(parseAttachment(inlineFile('AAEC', mimeType, 'f')), inlineFile('AAEC', mimeType, 'f'));
    }
  });

  it('accepts any other text/* subtype and normalizes the MIME type to lower case', () => {
    assert.deepEqual(parseAttachment(inlineFile('AAEC', 'text/x-python', 'main.py')), {
      type: 'input_file',
      mimeType: 'text/x-python',
      filename: 'main.py',
      data: 'AAEC',
    });
    assert.equal(parseAttachment(inlineFile('AAEC', 'Image/PNG'))?.mimeType, 'image/png');
  });

  it('accepts an allowed type with parameters, keeping the base type', () => {
    assert.equal(parseAttachment(inlineFile('AAEC', 'text/plain; charset=utf-8'))?.mimeType, 'text/plain');
    assert.equal(parseAttachment(inlineFile('AAEC', 'Text/CSV;header=present'))?.mimeType, 'text/csv');
  });

  it('rejects disallowed MIME types', () => {
    for (const mimeType of [
      'application/zip',
      'video/mp4',
      'image/svg+xml',
      'text/',
      'application/zip; charset=utf-8',
      '; charset=utf-8',
    ]) {
      rejectsAttachment(
        inlineFile('AAEC', mimeType),
        new RegExp(
          `^messages\\.0\\.attachments\\.0\\.mimeType: ${JSON.stringify(mimeType).replace(/[+/]/g, '\\$&')} is not an allowed attachment type`,
        ),
      );
    }
    rejectsAttachment(
      { ...urlFile(), mimeType: 'application/zip' },
      /^messages\.0\.attachments\.0\.mimeType: "application\/zip" is not an allowed attachment type/,
    );
  });

  it('accepts an https input_file_url with or without mimeType and filename', () => {
    assert.deepEqual(parseAttachment(urlFile()), urlFile());
    const full = { ...urlFile(), mimeType: 'application/pdf', filename: 'report.pdf' };
    assert.deepEqual(parseAttachment(full), full);
  });

  it('rejects a non-https input_file_url', () => {
    for (const url of ['http://127.0.0.1:9/files/report.pdf', 'ftp://127.0.0.1:9/x', 'not a url']) {
      rejectsAttachment(urlFile(url), /^messages\.0\.attachments\.0\.url: must be an https:\/\/ URL$/);
    }
  });

  it('rejects unknown attachment types and missing fields', () => {
    rejectsAttachment(
      { type: 'image_url', url: 'https://127.0.0.1:9/x' },
      /^messages\.0\.attachments\.0\.type: must be an object whose type is input_file or input_file_url$/,
    );
    rejectsAttachment(
      { type: 'input_file', mimeType: 'text/plain', data: 'AAEC' },
      /^messages\.0\.attachments\.0\.filename: /,
    );
    rejectsAttachment(
      inlineFile('AAEC', 'text/plain', ''),
      /^messages\.0\.attachments\.0\.filename: must not be empty$/,
    );
    rejectsAttachment({ type: 'input_file_url' }, /^messages\.0\.attachments\.0\.url: /);
  });

  it('rejects a data-URL prefix on inline data', () => {
    rejectsAttachment(
      inlineFile('data:text/plain;base64,aGVsbG8='),
      /^messages\.0\.attachments\.0\.data: must be raw base64 without a data: URL prefix$/,
    );
  });

  it('rejects malformed base64', () => {
    for (const data of [
      'aGVsbG8',
      'aGVsbG8==',
      'aGV=bG8=',
      'a===',
      '====',
      'aGVs bG8=',
      'aGVsbG8=\n',
      'aGV-bG_=',
      'é012',
    ]) {
      rejectsAttachment(inlineFile(data), /^messages\.0\.attachments\.0\.data: must be well-formed base64/);
    }
    rejectsAttachment(inlineFile(''), /^messages\.0\.attachments\.0\.data: must not be empty$/);
  });

  it('accepts exactly 5 MB of inline data across all messages', () => {
    const parsed = parseInput(
      runRequestSchema,
      withMessages([
        userMessage('older', [inlineFile(base64OfSize(3_000_000), 'application/pdf')]),
        { role: 'assistant', content: 'ok' },
        userMessage('now', [inlineFile(base64OfSize(MB5 - 3_000_000), 'image/png'), urlFile()]),
      ]),
    );
    assert.equal(parsed.messages?.length, 3);
  });

  it('rejects more than 5 MB of inline data in total, naming the attachment that crosses the limit', () => {
    rejectsMessages(
      [
        userMessage('older', [inlineFile(base64OfSize(3_000_000), 'application/pdf')]),
        { role: 'assistant', content: 'ok' },
        userMessage('now', [urlFile(), inlineFile(base64OfSize(MB5 - 3_000_000 + 1), 'image/png')]),
      ],
      /^messages\.2\.attachments\.1: inline attachment data exceeds 5 MB in total \(5,242,881 bytes decoded, limit 5,242,880\)/,
    );
    rejectsMessages(
      [userMessage('one big file', [inlineFile(base64OfSize(MB5 + 2), 'application/pdf')])],
      /^messages\.0\.attachments\.0: inline attachment data exceeds 5 MB in total/,
    );
  });

  it('exposes the MIME and base64 helpers that tool results reuse', () => {
    assert.equal(isAllowedAttachmentMime('application/pdf'), true);
    assert.equal(isAllowedAttachmentMime('text/x-python'), true);
    assert.equal(isAllowedAttachmentMime('TEXT/CSV'), true);
    assert.equal(isAllowedAttachmentMime('application/zip'), false);
    assert.equal(isAllowedAttachmentMime('video/mp4'), false);
    assert.equal(isAllowedAttachmentMime('text'), false);
    for (let bytes = 0; bytes <= 12; bytes += 1) {
      const data = base64OfSize(bytes);
      assert.equal(isWellFormedBase64(data), true, data);
      assert.equal(decodedBase64Size(data), bytes, data);
      assert.equal(decodedBase64Size(data.replace(/=+$/, '')), bytes, `unpadded ${data}`);
    }
    assert.equal(isWellFormedBase64('aGVsbG8'), false);
    assert.equal(isWellFormedBase64('aGVsbG8=='), false);
  });
});

describe('metadata', () => {
  const entries = (count: number, value = 'v') =>
    Object.fromEntries(Array.from({ length: count }, (_, index) => [`key.${index}`, value]));

  it('accepts up to 16 string entries with keys of [A-Za-z0-9._-]{1,64} and values up to 256 characters', () => {
    const metadata = { ...entries(14), 'Team_A-1.x': 'y'.repeat(256), ['k'.repeat(64)]: '' };
    assert.deepEqual(parseRun({ metadata }).metadata, metadata);
    assert.deepEqual(parseInput(metadataSchema, {}, 'metadata'), {});
  });

  it('rejects 17 entries', () => {
    rejectsRun({ metadata: entries(17) }, /^metadata: must have at most 16 entries \(got 17\)$/);
  });

  it('rejects bad keys', () => {
    rejectsRun(
      { metadata: { 'bad key': 'x' } },
      /^metadata\.bad key: key must match \^\[A-Za-z0-9\._-\]\{1,64\}\$$/,
    );
    rejectsRun({ metadata: { 'a/b': 'x' } }, /^metadata\.a\/b: key must match/);
    rejectsRun({ metadata: { ['k'.repeat(65)]: 'x' } }, /^metadata\.k{65}: key must match/);
    rejectsRun({ metadata: { '': 'x' } }, /^metadata\.: key must match/);
  });

  it('rejects values that are not strings of at most 256 characters', () => {
    rejectsRun({ metadata: { note: 'y'.repeat(257) } }, /^metadata\.note: must be at most 256 characters$/);
    rejectsRun({ metadata: { count: 3 } }, /^metadata\.count: must be a string$/);
    rejectsRun({ metadata: { nested: { a: 'b' } } }, /^metadata\.nested: must be a string$/);
  });

  it('rejects a serialized size above 4 KB', () => {
    const big = Object.fromEntries(
      Array.from({ length: 16 }, (_, index) => [`k${index}`.padEnd(40, 'x'), 'v'.repeat(230)]),
    );
    assert.ok(JSON.stringify(big).length > 4096);
    rejectsRun(
      { metadata: big },
      /^metadata: serialized size must be at most 4 KB \(4,096 bytes; got [\d,]+\)$/,
    );
    const fits = Object.fromEntries(
      Array.from({ length: 12 }, (_, index) => [`k${index}`.padEnd(40, 'x'), 'v'.repeat(256)]),
    );
    assert.ok(JSON.stringify(fits).length <= 4096);
    assert.deepEqual(parseRun({ metadata: fits }).metadata, fits);
  });

  it('rejects a metadata value that is not an object', () => {
    rejectsRun({ metadata: ['a'] }, /^metadata: must be an object mapping string keys to string values$/);
    assert.match(rejection('x', metadataSchema, 'metadata'), /^metadata: must be an object mapping/);
  });
});

describe('outputSchema', () => {
  const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

  it('fills in the default name and enforcement', () => {
    assert.deepEqual(parseRun({ outputSchema: { schema } }).outputSchema, {
      name: 'output',
      schema,
      enforcement: 'best_effort',
    });
  });

  it('keeps an explicit name and strict enforcement', () => {
    assert.deepEqual(
      parseRun({ outputSchema: { name: 'final-Answer_1', schema, enforcement: 'strict' } }).outputSchema,
      {
        name: 'final-Answer_1',
        schema,
        enforcement: 'strict',
      },
    );
  });

  it('rejects a missing, null or array schema', () => {
    const SCHEMA =
      /^outputSchema\.schema: required: a JSON Schema whose root is a JSON object \(not null, not an array\)$/;
    rejectsRun({ outputSchema: { schema: [] } }, SCHEMA);
    rejectsRun({ outputSchema: { schema: null } }, SCHEMA);
    rejectsRun({ outputSchema: { schema: 'object' } }, SCHEMA);
    rejectsRun({ outputSchema: {} }, SCHEMA);
  });

  it('rejects a bad name and an unknown enforcement', () => {
    rejectsRun(
      { outputSchema: { name: 'my output', schema } },
      /^outputSchema\.name: must match \^\[a-zA-Z0-9_-\]\{1,64\}\$$/,
    );
    rejectsRun({ outputSchema: { name: 'n'.repeat(65), schema } }, /^outputSchema\.name: must match/);
    rejectsRun({ outputSchema: { name: '', schema } }, /^outputSchema\.name: must match/);
    rejectsRun(
      { outputSchema: { schema, enforcement: 'lenient' } },
      /^outputSchema\.enforcement: must be best_effort or strict$/,
    );
  });

  it('rejects a serialized size above 32 KB and accepts one just below', () => {
    const sized = (chars: number) => ({ schema: { type: 'object', description: 'd'.repeat(chars) } });
    assert.ok(parseRun({ outputSchema: sized(32 * 1024 - 100) }).outputSchema);
    rejectsRun(
      { outputSchema: sized(32 * 1024) },
      /^outputSchema: serialized size must be at most 32 KB \(32,768 bytes; got [\d,]+\)$/,
    );
  });

  it('rejects a non-object outputSchema', () => {
    rejectsRun(
      { outputSchema: 'json' },
      /^outputSchema: must be an object \{ name\?, schema, enforcement\? \}$/,
    );
  });
});

describe('loopDetection', () => {
  it('accepts false and fills in the default thresholds 3 and 6', () => {
    assert.equal(parseRun({ loopDetection: false }).loopDetection, false);
    assert.deepEqual(parseRun({ loopDetection: {} }).loopDetection, {
      consecutiveThreshold: 3,
      hardCutoffThreshold: 6,
    });
    assert.deepEqual(parseRun({ loopDetection: { consecutiveThreshold: 5 } }).loopDetection, {
      consecutiveThreshold: 5,
      hardCutoffThreshold: 6,
    });
    assert.deepEqual(
      parseRun({ loopDetection: { consecutiveThreshold: 2, hardCutoffThreshold: 100 } }).loopDetection,
      {
        consecutiveThreshold: 2,
        hardCutoffThreshold: 100,
      },
    );
    assert.deepEqual(
      parseRun({ loopDetection: { consecutiveThreshold: 99, hardCutoffThreshold: 100 } }).loopDetection,
      {
        consecutiveThreshold: 99,
        hardCutoffThreshold: 100,
      },
    );
  });

  it('bounds each threshold', () => {
    for (const bad of [1, 101, 2.5, '3']) {
      rejectsRun(
        { loopDetection: { consecutiveThreshold: bad, hardCutoffThreshold: 100 } },
        /^loopDetection\.consecutiveThreshold: must be an integer from 2 to 100$/,
      );
    }
    for (const bad of [2, 101]) {
      rejectsRun(
        { loopDetection: { consecutiveThreshold: 2, hardCutoffThreshold: bad } },
        /^loopDetection\.hardCutoffThreshold: must be an integer from 3 to 100$/,
      );
    }
  });

  it('rejects a hard cutoff not greater than the consecutive threshold, defaults included', () => {
    const NOT_GREATER = /^loopDetection\.hardCutoffThreshold: must be greater than consecutiveThreshold/;
    rejectsRun({ loopDetection: { consecutiveThreshold: 4, hardCutoffThreshold: 4 } }, NOT_GREATER);
    rejectsRun({ loopDetection: { consecutiveThreshold: 5, hardCutoffThreshold: 4 } }, NOT_GREATER);
    rejectsRun({ loopDetection: { consecutiveThreshold: 6 } }, NOT_GREATER);
    rejectsRun({ loopDetection: { hardCutoffThreshold: 3 } }, NOT_GREATER);
  });

  it('rejects true and other scalars', () => {
    for (const bad of [true, 'off', 0, null]) {
      rejectsRun(
        { loopDetection: bad },
        /^loopDetection: must be false or an object \{ consecutiveThreshold\?, hardCutoffThreshold\? \}$/,
      );
    }
  });
});

describe('toolBudgets', () => {
  const budgets = (count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, index) => [`tool_${index}`, { maxCalls: index }]));

  it('accepts up to 32 entries with maxCalls 0..1000 and keys of 1..120 characters', () => {
    const value = { ...budgets(30), recall: { maxCalls: 1000 }, ['t'.repeat(120)]: { maxCalls: 0 } };
    assert.deepEqual(parseRun({ toolBudgets: value }).toolBudgets, value);
    assert.deepEqual(parseRun({ toolBudgets: {} }).toolBudgets, {});
  });

  it('rejects 33 entries', () => {
    rejectsRun({ toolBudgets: budgets(33) }, /^toolBudgets: must have at most 32 entries \(got 33\)$/);
  });

  it('rejects keys outside 1..120 characters', () => {
    rejectsRun(
      { toolBudgets: { ['t'.repeat(121)]: { maxCalls: 1 } } },
      /^toolBudgets\.t{121}: tool name key must be 1 to 120 characters$/,
    );
    rejectsRun(
      { toolBudgets: { '': { maxCalls: 1 } } },
      /^toolBudgets\.: tool name key must be 1 to 120 characters$/,
    );
  });

  it('rejects maxCalls outside the integers 0..1000', () => {
    for (const bad of [-1, 1001, 1.5, '5', null]) {
      rejectsRun(
        { toolBudgets: { recall: { maxCalls: bad } } },
        /^toolBudgets\.recall\.maxCalls: must be an integer from 0 to 1,000$/,
      );
    }
    rejectsRun(
      { toolBudgets: { recall: {} } },
      /^toolBudgets\.recall\.maxCalls: must be an integer from 0 to 1,000$/,
    );
  });

  it('rejects entries that are not { maxCalls } objects and a non-object map', () => {
    rejectsRun({ toolBudgets: { recall: 5 } }, /^toolBudgets\.recall: must be an object \{ maxCalls \}$/);
    rejectsRun({ toolBudgets: [] }, /^toolBudgets: must be an object mapping tool names to \{ maxCalls \}$/);
  });
});

describe('supervisor', () => {
  it('accepts true, false and objects within bounds', () => {
    assert.equal(parseRun({ supervisor: true }).supervisor, true);
    assert.equal(parseRun({ supervisor: false }).supervisor, false);
    assert.deepEqual(parseRun({ supervisor: {} }).supervisor, {});
    const low = { interval: 1, modelId: 'openai/gpt-5-mini', reasoningTrigger: false };
    assert.deepEqual(parseRun({ supervisor: low }).supervisor, low);
    const high = { interval: 100, reasoningTrigger: { chars: 50_000, ms: 600_000 } };
    assert.deepEqual(parseRun({ supervisor: high }).supervisor, high);
    const minimal = { reasoningTrigger: { chars: 1, ms: 1 } };
    assert.deepEqual(parseRun({ supervisor: minimal }).supervisor, minimal);
  });

  it('bounds interval to 1..100', () => {
    for (const bad of [0, 101, 2.5]) {
      rejectsRun(
        { supervisor: { interval: bad } },
        /^supervisor\.interval: must be an integer from 1 to 100$/,
      );
    }
  });

  it('bounds reasoningTrigger chars and ms', () => {
    for (const bad of [0, 50_001]) {
      rejectsRun(
        { supervisor: { reasoningTrigger: { chars: bad } } },
        /^supervisor\.reasoningTrigger\.chars: must be an integer from 1 to 50,000$/,
      );
    }
    for (const bad of [0, 600_001]) {
      rejectsRun(
        { supervisor: { reasoningTrigger: { ms: bad } } },
        /^supervisor\.reasoningTrigger\.ms: must be an integer from 1 to 600,000$/,
      );
    }
    rejectsRun(
      { supervisor: { reasoningTrigger: true } },
      /^supervisor\.reasoningTrigger: must be false or an object \{ chars\?, ms\? \}$/,
    );
  });

  it('rejects other shapes', () => {
    rejectsRun(
      { supervisor: 'yes' },
      /^supervisor: must be true, false or an object \{ interval\?, modelId\?, reasoningTrigger\? \}$/,
    );
    rejectsRun({ supervisor: { modelId: 3 } }, /^supervisor\.modelId: must be a string$/);
  });
});

describe('plan', () => {
  it('accepts true, false, auto, required and the object forms', () => {
    for (const plan of [true, false, 'auto', 'required']) assert.equal(parseRun({ plan }).plan, plan);
    const seeded = { mode: 'required', steps: ['Collect data', 'Write report'], brief: 'Quarterly report' };
    assert.deepEqual(parseRun({ plan: seeded }).plan, seeded);
    assert.deepEqual(parseRun({ plan: { planOnly: true } }).plan, { planOnly: true });
    assert.deepEqual(parseRun({ plan: { mode: 'off', steps: [] } }).plan, { mode: 'off', steps: [] });
    const many = { steps: Array.from({ length: 100 }, (_, index) => `step ${index}`) };
    assert.deepEqual(parseRun({ plan: many }).plan, many);
  });

  it('rejects other scalars', () => {
    for (const plan of ['off', 'sometimes', 1, null]) {
      rejectsRun(
        { plan },
        /^plan: must be true, false, auto, required or an object \{ mode\?, steps\?, brief\?, planOnly\? \}$/,
      );
    }
  });

  it('type-checks the object fields', () => {
    rejectsRun({ plan: { mode: 'always' } }, /^plan\.mode: must be off, auto or required$/);
    rejectsRun({ plan: { steps: 'one' } }, /^plan\.steps: must be an array of strings$/);
    rejectsRun({ plan: { steps: ['ok', 2] } }, /^plan\.steps\.1: must be a string$/);
    rejectsRun({ plan: { brief: 3 } }, /^plan\.brief: must be a string$/);
    rejectsRun({ plan: { planOnly: 'yes' } }, /^plan\.planOnly: must be true or false$/);
  });
});

describe('plan clamping', () => {
  it('clamps the step count to 100, each step to 500 characters and the brief to 300, as the spec says', () => {
    const steps = Array.from({ length: 120 }, (_, index) =>
      index === 0 ? 'x'.repeat(800) : `step ${index}`,
    );
    const plan = parseRun({ plan: { steps, brief: 'b'.repeat(400) } }).plan as {
      steps: string[];
      brief: string;
    };
    assert.equal(plan.steps.length, 100);
    assert.equal(plan.steps[0], 'x'.repeat(500));
    assert.equal(plan.steps[99], 'step 99');
    assert.equal(plan.brief, 'b'.repeat(300));
  });
});

describe('reasoningLevel and budgets', () => {
  it('accepts the named levels and integers 0..100', () => {
    for (const reasoningLevel of ['off', 'low', 'medium', 'high', 0, 55, 100]) {
      assert.equal(parseRun({ reasoningLevel }).reasoningLevel, reasoningLevel);
    }
  });

  it('rejects other levels', () => {
    for (const reasoningLevel of ['extreme', 'HIGH', 101, -1, 2.5, null]) {
      rejectsRun(
        { reasoningLevel },
        /^reasoningLevel: must be (off, low, medium, high or )?an integer from 0 to 100$/,
      );
    }
    rejectsRun(
      { reasoningLevel: 'extreme' },
      /^reasoningLevel: must be off, low, medium, high or an integer from 0 to 100$/,
    );
  });

  it('bounds budgets.maxToolTurns to integers 1..1000', () => {
    assert.deepEqual(parseRun({ budgets: { maxToolTurns: 1 } }).budgets, { maxToolTurns: 1 });
    assert.deepEqual(parseRun({ budgets: { maxToolTurns: 1000 } }).budgets, { maxToolTurns: 1000 });
    assert.deepEqual(parseRun({ budgets: {} }).budgets, {});
    for (const bad of [0, 1001, 2.5]) {
      rejectsRun(
        { budgets: { maxToolTurns: bad } },
        /^budgets\.maxToolTurns: must be an integer from 1 to 1,000$/,
      );
    }
    rejectsRun({ budgets: 10 }, /^budgets: must be an object \{ maxToolTurns\? \}$/);
  });
});

describe('tools and agentSpecFields reuse', () => {
  it('validates tools with the tool-ref schema', () => {
    const tools = [
      { kind: 'svc', id: 'tool_1' },
      { kind: 'local', name: 'lookup_order', description: 'Find an order', readOnly: true },
    ];
    assert.deepEqual(parseRun({ tools }).tools, tools);
    rejectsRun({ tools: [{ kind: 'local', name: 'bad name' }] }, /^tools\.0\.name: must match/);
    rejectsRun({ tools: [{ kind: 'shell' }] }, /^tools\.0\.kind: kind must be one of/);
  });

  it('agentSpecFields builds a session spec with the same rules and no prompt or messages', () => {
    const sessionSpec = z.object(agentSpecFields);
    const parsed = parseInput(sessionSpec, {
      systemPrompt: 'sys',
      loopDetection: {},
      outputSchema: { schema: { type: 'object' } },
      metadata: { tenant: 'acme' },
      prompt: 'dropped',
    });
    assert.deepEqual(parsed, {
      systemPrompt: 'sys',
      loopDetection: { consecutiveThreshold: 3, hardCutoffThreshold: 6 },
      outputSchema: { name: 'output', schema: { type: 'object' }, enforcement: 'best_effort' },
      metadata: { tenant: 'acme' },
    });
    assert.match(
      rejection({ metadata: { 'bad key': 'x' } }, sessionSpec),
      /^metadata\.bad key: key must match/,
    );
  });

  it('parses a full run request to the expected output', () => {
    const input = {
      name: 'support-triage',
      agentId: 'agt_123',
      modelId: 'anthropic/claude-sonnet-4',
      reasoningLevel: 'medium',
      tools: [{ kind: 'local', name: 'lookup_order' }],
      budgets: { maxToolTurns: 12 },
      outputSchema: { name: 'triage', schema: { type: 'object' }, enforcement: 'strict' },
      loopDetection: { consecutiveThreshold: 2, hardCutoffThreshold: 4 },
      toolBudgets: { lookup_order: { maxCalls: 3 } },
      supervisor: { interval: 3, reasoningTrigger: false },
      plan: 'auto',
      metadata: { ticket: 'T-1' },
      messages: [
        { role: 'system', content: 'Reply in English.' },
        userMessage('Where is my order?', [inlineFile('aGVsbG8=', 'image/jpeg', 'receipt.jpg'), urlFile()]),
      ],
      localToolTimeoutMs: 120_000,
    };
    const parsed: unknown = parseInput(runRequestSchema, input);
    assert.deepEqual(parsed, input);
  });
});
