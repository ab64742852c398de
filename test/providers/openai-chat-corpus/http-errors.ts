import { plainQuestion } from './calls.ts';
import { failed, type CorpusCase } from './corpus-case.ts';

/** Error answers before any stream: statuses, error bodies, retry hints. */

const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit-requests': '10000',
  'x-ratelimit-limit-tokens': '30000',
  'x-ratelimit-remaining-requests': '9999',
  'x-ratelimit-remaining-tokens': '0',
  'x-ratelimit-reset-requests': '6ms',
  'x-ratelimit-reset-tokens': '1.2s',
  'x-request-id': 'req_8b2d0e6f1a3c4b5d9e7f0a1b2c3d4e5f',
};

const openAIError = (message: string, type: string, code: string | null, param: string | null = null) => ({
  error: { message, type, param, code },
});

export const HTTP_ERROR_CASES: readonly CorpusCase[] = [
  {
    name: 'http: 429 rate_limit_exceeded with retry-after in seconds (OpenAI)',
    call: plainQuestion(),
    reply: failed(
      429,
      openAIError(
        'Rate limit reached for gpt-4o-mini in organization org-AbC123 on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s. Visit https://platform.openai.com/account/rate-limits to learn more.',
        'tokens',
        'rate_limit_exceeded',
      ),
      { headers: { ...RATE_LIMIT_HEADERS, 'retry-after': '2' } },
    ),
  },
  {
    name: 'http: 429 with retry-after-ms beside retry-after (milliseconds win)',
    call: plainQuestion(),
    reply: failed(429, openAIError('Too many requests', 'requests', 'rate_limit_exceeded'), {
      headers: { 'retry-after-ms': '1450.5', 'retry-after': '2' },
    }),
  },
  {
    name: 'http: 429 retry-after as an HTTP date in the past',
    call: plainQuestion(),
    reply: failed(429, openAIError('Too many requests', 'requests', 'rate_limit_exceeded'), {
      headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' },
    }),
  },
  {
    name: 'http: 429 insufficient_quota (not retryable)',
    call: plainQuestion(),
    reply: failed(
      429,
      openAIError(
        'You exceeded your current quota, please check your plan and billing details.',
        'insufficient_quota',
        'insufficient_quota',
      ),
    ),
  },
  {
    name: 'http: 500 server_error with retry-after',
    call: plainQuestion(),
    reply: failed(
      500,
      openAIError(
        'The server had an error while processing your request. Sorry about that!',
        'server_error',
        null,
      ),
      { headers: { 'retry-after': '1' } },
    ),
  },
  {
    name: 'http: 503 overloaded with retry-after (code in the body)',
    call: plainQuestion(),
    reply: failed(
      503,
      openAIError(
        'The engine is currently overloaded, please try again later.',
        'server_error',
        'overloaded',
      ),
      { headers: { 'retry-after': '5' } },
    ),
  },
  {
    name: 'http: 503 with an empty body (status text as the message)',
    call: plainQuestion(),
    reply: failed(503, '', { headers: { 'content-type': 'text/plain' } }),
  },
  {
    name: 'http: 400 context_length_exceeded (OpenAI body with param and code)',
    call: plainQuestion(),
    reply: failed(
      400,
      openAIError(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
        'invalid_request_error',
        'context_length_exceeded',
        'messages',
      ),
    ),
  },
  {
    name: 'http: 400 invalid_request_error with code null (the type is the code)',
    call: plainQuestion(),
    reply: failed(
      400,
      openAIError(
        "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be supplied and to be false.",
        'invalid_request_error',
        null,
        'tools[0].function.parameters',
      ),
    ),
  },
  {
    name: 'http: 400 with a vLLM error body (object error, numeric code, no error wrapper)',
    call: plainQuestion(),
    reply: failed(400, {
      object: 'error',
      message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    }),
  },
  {
    name: 'http: 401 invalid_api_key with the key echoed in the message (redacted)',
    call: plainQuestion(),
    reply: failed(
      401,
      openAIError(
        'Incorrect API key provided: sk-proj-********************************************abcd. You can find your API key at https://platform.openai.com/account/api-keys.',
        'invalid_request_error',
        'invalid_api_key',
      ),
      { headers: { 'www-authenticate': 'Bearer realm="OpenAI API"' } },
    ),
  },
  {
    name: 'http: 404 model_not_found',
    call: plainQuestion(),
    reply: failed(
      404,
      openAIError(
        'The model `gpt-4o-mini` does not exist or you do not have access to it.',
        'invalid_request_error',
        'model_not_found',
      ),
    ),
  },
  {
    name: 'http: 502 with an HTML body (nginx) and its reason phrase',
    call: plainQuestion(),
    reply: failed(
      502,
      '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
      { headers: { 'content-type': 'text/html' } },
    ),
  },
  {
    name: 'http: 504 with a plain-text body and a custom reason phrase (Envoy)',
    call: plainQuestion(),
    reply: failed(504, 'upstream request timeout', { statusText: 'Upstream Timeout' }),
  },
  {
    name: 'http: 400 with a JSON body that is not an error object ({"detail": ...})',
    call: plainQuestion(),
    reply: failed(400, { detail: [{ loc: ['body', 'messages'], msg: 'field required', type: 'missing' }] }),
  },
];
