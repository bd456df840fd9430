import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, LeaseHeldError, NotFoundError, PreconditionFailedError } from '../../shared/core/errors.js';
import { ApiError } from '../api-client/api-error.js';
import { renderError } from './errors.js';

function render(error: unknown): { code: number; text: string } {
  let text = '';
  const code = renderError(error, { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WritableStream);
  return { code, text };
}

describe('rendering a gate that refused an update', () => {
  it('shows the service\'s 412 as the gate\'s sentence, without the status', () => {
    const refused = new ApiError(412, 'Gate change-window denied the update: outside the change window', 'req-1', 'start update');

    expect(render(refused)).toEqual({ code: 1, text: 'error: Gate change-window denied the update: outside the change window\n' });
  });

  it('shows the local backend\'s refusal the same way', () => {
    const refused = new PreconditionFailedError('Gate change-window denied the update: outside the change window');

    expect(render(refused)).toEqual({ code: 1, text: 'error: Gate change-window denied the update: outside the change window\n' });
  });

  it('keeps the status on other service errors', () => {
    expect(render(new ApiError(400, 'Invalid hook name.')).text).toBe('error: [400] Invalid hook name.\n');
  });
});

describe('the two backends render the same refusal alike', () => {
  it.each([
    new ConflictError("Stack 'acme/web/dev' already exists: choose another name."),
    new InvalidInputError('Invalid hook name.'),
    new NotFoundError("Stack 'acme/web/dev' does not exist."),
    new LeaseHeldError({ updateId: 'u1', holder: 'carol', startedAt: 0, expiresAt: 300_000 }),
  ])('$kind: the local backend\'s core error reads as the service\'s answer', (error) => {
    const fromService = new ApiError(error.status, error.message, 'req-1', error.kind === 'lease-held' ? 'start update' : undefined);

    expect(render(error)).toEqual(render(fromService));
    expect(render(error).text).toMatch(new RegExp(`^error: \\[${error.status}\\] `));
  });

  it('gives a taken name no advice to retry: its message says what to do', () => {
    expect(render(new ApiError(409, "Stack 'acme/web/dev' already exists: choose another name.")).text).toBe(
      "error: [409] Stack 'acme/web/dev' already exists: choose another name.\n",
    );
  });
});
