// One error type with a code and a status, turned into problem JSON (RFC 9457) in one handler (src/http/problem.ts).

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail ?? title);
    this.name = 'AppError';
  }
  get detail(): string {
    return this.message;
  }
}

export const badRequest = (code: string, detail: string, extra: Record<string, unknown> = {}) =>
  new AppError(400, code, 'Bad Request', detail, extra);
export const invalidParameter = (param: string, detail: string) =>
  new AppError(400, 'invalid_parameter', 'Invalid parameter', `${param}: ${detail}`, { parameter: param });
export const unauthorized = (code: string, detail: string) => new AppError(401, code, 'Unauthorized', detail);
export const forbidden = (code: string, detail: string) => new AppError(403, code, 'Forbidden', detail);
export const notFound = (what: string) => new AppError(404, 'not_found', 'Not Found', `${what} was not found`);
export const conflict = (code: string, detail: string) => new AppError(409, code, 'Conflict', detail);
export const tooManyRequests = (detail: string, retryAfterS: number) =>
  new AppError(429, 'rate_limited', 'Too Many Requests', detail, { retry_after: retryAfterS });
