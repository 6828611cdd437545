import { ApiError } from '../../libs/web/ui/api.js';

describe("the web pages' errors in words (spec 7 codes)", () => {
  test("the code's meaning, then the server's message", () => {
    expect(new ApiError(403, 'LICENSE_EXPIRED', 'Expired on 2026-01-01.').message).toBe(
      'The license has expired. Expired on 2026-01-01.',
    );
  });

  test('a server message the meaning already says is not said twice', () => {
    expect(new ApiError(403, 'LICENSE_INVALID', 'This license key is not valid.').message).toBe(
      'This license key is not valid, or the license is not active.',
    );
    expect(new ApiError(404, 'NOT_FOUND', '').message).toBe('Not found.');
  });

  test('an unknown code still reads as a failure, with the server message', () => {
    expect(new ApiError(418, 'TEAPOT', 'No coffee.').message).toBe(
      'The request failed. No coffee.',
    );
  });
});
