import { describe, expect, it } from 'vitest';
import {
  ApiError,
  forbidden,
  methodNotAllowed,
  renderError,
  tooManyRequests,
  unauthorized,
} from '../../apiserver/errors.js';

describe('renderError', () => {
  const error = new ApiError(
    403,
    '2fa_required',
    'two-factor code required',
    { factor: 'totp' },
    {
      session_token: 'tmp_1',
    },
  );

  it('writes the general style with details and the request id', () => {
    expect(renderError(error, 'general', 'req-1')).toEqual({
      error: { code: '2fa_required', message: 'two-factor code required', details: { factor: 'totp' } },
      meta: { request_id: 'req-1' },
    });
  });

  it('writes the flat style with the extra fields and nothing else', () => {
    expect(renderError(error, 'flat', 'req-1')).toEqual({
      error: '2fa_required',
      message: 'two-factor code required',
      session_token: 'tmp_1',
    });
  });
});

describe('error constructors', () => {
  it.each([
    [unauthorized(), 401, 'unauthorized'],
    [unauthorized('wrong e-mail or password', { code: 'invalid_credentials' }), 401, 'invalid_credentials'],
    [forbidden('no'), 403, 'forbidden'],
  ])('builds %s', (error, status, code) => {
    expect([error.status, error.code]).toEqual([status, code]);
  });

  it('puts retry_after in both styles and Retry-After in the headers of a 429', () => {
    const error = tooManyRequests(900, 'too many login attempts; wait 15 minutes');
    expect(renderError(error, 'flat', 'r')).toEqual({
      error: 'rate_limited',
      message: 'too many login attempts; wait 15 minutes',
      retry_after: 900,
    });
    expect(error.details).toEqual({ retry_after: 900 });
    expect(error.headers).toEqual({ 'Retry-After': '900' });
  });

  it('names the allowed methods of a 405 in Allow', () => {
    expect(methodNotAllowed('PUT', ['GET', 'HEAD']).headers).toEqual({ Allow: 'GET, HEAD' });
  });
});
