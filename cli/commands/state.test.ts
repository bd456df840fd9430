import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../shared/core/errors.js';
import { ApiError } from '../api-client/api-error.js';
import { refusedWhileUpdating } from './state.js';

describe('state edits refused during a live update', () => {
  const serverMessage =
    "Cannot import into stack 'acme/web/dev': update s1.ab by alice is in progress. Wait for it to finish, or run " +
    "'stackyard cancel' if it is no longer running, then retry.";

  it.each([
    ['the service (409)', new ApiError(409, serverMessage, 'req-1', 'import stack')],
    ['local storage', new ConflictError(serverMessage)],
  ])('names the command the user ran, not the import it is stored as, on %s', (_where, error) => {
    const refusal = refusedWhileUpdating(error, 'state repair');

    expect(refusal?.message).toBe(
      '`stackyard state repair` cannot change the state while an update is in progress (update s1.ab by alice); nothing was changed',
    );
    expect(refusal?.hint).toContain('stackyard cancel');
  });

  it('leaves other errors alone', () => {
    expect(refusedWhileUpdating(new ApiError(409, 'The stack changed meanwhile; retry.'), 'state repair')).toBeUndefined();
    expect(refusedWhileUpdating(new ApiError(500, 'in progress'), 'state repair')).toBeUndefined();
  });
});
