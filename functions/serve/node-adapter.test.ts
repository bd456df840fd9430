import type { IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { requestFromEvent } from '../handlers/api-gateway.js';
import { eventFromRequest } from './node-adapter.js';

function incoming(headers: Record<string, string>): IncomingMessage {
  return {
    url: '/api/stacks/acme/proj/dev/update/u1/checkpoint',
    method: 'PATCH',
    httpVersion: '1.1',
    headersDistinct: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
}

describe('eventFromRequest', () => {
  it('hands the handler the binary body serve holds, while the event still carries it base64-encoded as Lambda does', () => {
    const body = gzipSync(Buffer.from('{"version":3,"deployment":{}}'));

    const event = eventFromRequest(incoming({ 'content-type': 'application/json', 'content-encoding': 'gzip' }), body);

    expect(requestFromEvent(event).body).toBe(body);
    expect(event.isBase64Encoded).toBe(true);
    expect(event.body).toBe(body.toString('base64'));
    expect(JSON.parse(JSON.stringify(event)).body).toBe(body.toString('base64'));
  });

  it('gives a text body as UTF-8 text, as Lambda does', () => {
    const body = Buffer.from('{"a":"é"}');

    const event = eventFromRequest(incoming({ 'content-type': 'application/json' }), body);

    expect(event).toMatchObject({ body: '{"a":"é"}', isBase64Encoded: false });
    expect(requestFromEvent(event).body.equals(body)).toBe(true);
  });
});
