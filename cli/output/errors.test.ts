import { describe, expect, it } from 'vitest';
import { PreconditionFailedError } from '../../shared/core/errors.js';
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
